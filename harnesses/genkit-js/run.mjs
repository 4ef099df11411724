// The Genkit JS harness: Genkit's own tool loop (`ai.generate` / `ai.generateStream` with tools
// declared by `ai.defineTool`) over the replay server, through Genkit's first-party model plugins.
// It speaks the harness protocol (docs/harness.md):
//
//   npm ci --prefix harnesses/genkit-js
//   conformance run --harness 'node harnesses/genkit-js/run.mjs'
//
// The protocol itself is the shared harness kit's. Genkit and the provider SDKs log through console
// and process.stdout; the kit, imported first, keeps stdout for the protocol before any of them is
// loaded.
import { callTool, installedVersions, RunInterrupted, runsOf, serve } from "@toolcall-conformance/harness-kit";

// Genkit stops a loop after `maxTurns` model calls with tool requests (5 by default); recordings may
// hold longer chains, and the replay already answers a turn past the end with an error.
const MAX_TURNS = 16;

const { genkit } = await import("genkit");
// A tool's `interrupt()` is a beta feature of Genkit: it needs the instance `genkit/beta` makes.
const { genkit: genkitBeta } = await import("genkit/beta");
const { openAI } = await import("@genkit-ai/compat-oai/openai");
const { openAICompatible } = await import("@genkit-ai/compat-oai");
const { googleAI } = await import("@genkit-ai/google-genai");
const { anthropic } = await import("@genkit-ai/anthropic");
const { ollama } = await import("genkitx-ollama");

const PACKAGES = [
  "genkit",
  "@genkit-ai/ai",
  "@genkit-ai/core",
  "@genkit-ai/compat-oai",
  "@genkit-ai/google-genai",
  "@genkit-ai/anthropic",
  "genkitx-ollama",
  "openai",
  "@anthropic-ai/sdk",
  "ollama",
];

// Each API: the Genkit plugin that serves it, configured as its documentation shows, and the
// model reference to generate with. `c` is the case of a `run` command.
const compatible = (name) => (c) =>
  openAICompatible({ name, apiKey: c.api_key, baseURL: c.base_url, maxRetries: 0 });

const SERVED = {
  // The OpenAI plugin is compat-oai's OpenAI-compatible plugin with OpenAI's model list; it is used
  // for every Chat Completions recording, OpenAI's and other servers' alike (the code path is one).
  "openai-chat": {
    plugin: (c) => openAI({ apiKey: c.api_key, baseURL: c.base_url, maxRetries: 0 }),
    model: (c) => `openai/${c.model}`,
    config: chatCompletionsConfig,
  },
  "kimi-chat": { plugin: compatible("moonshot"), model: (c) => `moonshot/${c.model}`, config: chatCompletionsConfig },
  "mistral-chat": { plugin: compatible("mistral"), model: (c) => `mistral/${c.model}`, config: chatCompletionsConfig },
  gemini: {
    plugin: (c) => googleAI({ apiKey: c.api_key, baseUrl: c.base_url, apiVersion: geminiApiVersion(c) }),
    model: (c) => googleAI.model(c.model.replace(/^.*models\//, "")),
    config: geminiConfig,
  },
  "anthropic-messages": {
    // The plugin builds its Anthropic client from the API key alone; the SDK takes its base URL
    // from ANTHROPIC_BASE_URL, as the SDK documents.
    plugin: (c) => {
      process.env.ANTHROPIC_BASE_URL = c.base_url;
      return anthropic({ apiKey: c.api_key });
    },
    model: (c) => anthropic.model(c.model),
    config: anthropicConfig,
  },
  "ollama-chat": {
    plugin: (c) =>
      ollama({ serverAddress: c.base_url, models: [{ name: c.model, type: "chat", supports: { tools: true } }] }),
    model: (c) => `ollama/${c.model}`,
    config: () => ({}),
  },
};

const UNSUPPORTED = {
  "openai-responses": "Genkit's OpenAI plugin (@genkit-ai/compat-oai) speaks Chat Completions only; it has no Responses API model",
  "azure-foundry": "Genkit has no Azure AI Foundry plugin, and @genkit-ai/compat-oai has no Responses API model",
  openresponses: "@genkit-ai/compat-oai speaks Chat Completions only; it has no Open Responses model",
  "bedrock-converse": "Genkit has no first-party Amazon Bedrock plugin",
  "cohere-v2": "Genkit has no first-party Cohere plugin",
};

// Chat Completions (compat-oai): config keys the plugin does not know are sent in the request body
// as they are (model.mjs, toOpenAIRequestBody), so the recording's settings go there unchanged.
function chatCompletionsConfig(c) {
  const body = { ...(c.settings?.body ?? {}) };
  const serverTools = (c.recorded_tools ?? []).filter((t) => t && t.type && t.type !== "function" && t.type !== "custom");
  return serverTools.length ? { ...body, tools: serverTools } : body;
}

function geminiApiVersion(c) {
  const version = c.settings?.api_version;
  return typeof version === "string" && /^v1[a-z0-9]*$/.test(version) ? version : undefined;
}

// Gemini: the plugin's own options for server tools and tool config; generation settings are
// config keys, which the plugin sends in generationConfig.
function geminiConfig(c) {
  const body = c.settings?.body ?? {};
  const config = { ...(body.generationConfig ?? {}) };
  if (body.toolConfig) config.toolConfig = structuredClone(body.toolConfig);
  if (body.safetySettings) config.safetySettings = body.safetySettings;
  const raw = [];
  for (const tool of c.recorded_tools ?? []) {
    if (!tool || tool.functionDeclarations || tool.function_declarations) continue;
    if (tool.codeExecution || tool.code_execution) config.codeExecution = true;
    else if (tool.googleSearch || tool.google_search) config.googleSearch = tool.googleSearch ?? tool.google_search;
    else if (tool.urlContext || tool.url_context) config.urlContext = true;
    else raw.push(tool);
  }
  if (raw.length) config.tools = raw;
  return config;
}

// Anthropic: max_tokens is Genkit's maxOutputTokens; betas select the plugin's beta runner; other
// body fields (mcp_servers, metadata, tool_choice) are config keys the plugin sends as they are.
function anthropicConfig(c) {
  const { max_tokens: maxTokens, system: _system, ...rest } = c.settings?.body ?? {};
  const config = { ...rest };
  if (typeof maxTokens === "number") config.maxOutputTokens = maxTokens;
  const betas = c.settings?.headers?.["anthropic-beta"];
  if (betas) {
    config.apiVersion = "beta";
    config.betas = betas.split(",").map((b) => b.trim()).filter(Boolean);
  }
  const serverTools = anthropicServerTools(c);
  if (serverTools.length) config.tools = [...anthropicFunctionTools(c), ...serverTools];
  return config;
}

// The plugin declares a Genkit tool by its name, description and input_schema (toAnthropicTool,
// lib/runner/base.mjs) and has no option for Anthropic's server tools (web search, code execution, tool
// search, MCP toolsets); its config is sent last in the request body (`...restConfig`,
// lib/runner/stable.mjs, lib/runner/beta.mjs), so an application declares them with a config `tools`,
// which takes the place of the plugin's list: it lists the function tools too, each as the recording
// declared it (with `allowed_callers` or `defer_loading` where it had them), else in the plugin's form.
function anthropicServerTools(c) {
  return (c.recorded_tools ?? []).filter((t) => t && typeof t.type === "string" && !t.input_schema && t.type !== "custom");
}

function anthropicFunctionTools(c) {
  const recorded = new Map((c.recorded_tools ?? []).filter((t) => t?.input_schema).map((t) => [t.name, t]));
  return c.tools.map(
    (t) =>
      recorded.get(t.name) ?? {
        name: t.name,
        description: t.description ?? "",
        input_schema: { type: "object", ...(t.parameters ?? {}) },
      },
  );
}

function toolChoice(c) {
  const choice = c.settings?.body?.tool_choice;
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (choice === "any" || choice?.type === "any") return "required";
  return undefined;
}

// Genkit runs a turn's tools concurrently and appends each result as its tool finishes. Tools here
// are answered one at a time, in the order Genkit starts them, so that a run's verdict does not
// depend on which HTTP answer the scheduler delivers first (docs/findings.md, Genkit (JavaScript)).
// CONFORMANCE_GENKIT_TOOLS=concurrent lets them overlap, as the suite's test of that finding needs.
function serialized() {
  if (process.env.CONFORMANCE_GENKIT_TOOLS === "concurrent") return (task) => task();
  let last = Promise.resolve();
  return (task) => {
    const next = last.then(task);
    last = next.catch(() => {});
    return next;
  };
}

function defineTools(ai, c, inTurn) {
  return c.tools.map((t) =>
    ai.defineTool(
      {
        name: t.name,
        description: t.description ?? "",
        inputJsonSchema: t.parameters ?? { type: "object", properties: {} },
      },
      // A run cut off before its tool answered ends the way Genkit ends a run from inside a tool: the
      // tool's `interrupt()`, which stops the loop and returns the model's request unanswered.
      async (input, { interrupt }) => {
        try {
          return await inTurn(() => callTool(c.tools_url, t.name, input, null));
        } catch (error) {
          if (error instanceof RunInterrupted) interrupt({ reason: error.message });
          throw error;
        }
      },
    ),
  );
}

function options(c, tools, input) {
  const made = { model: SERVED[c.api].model(c), tools, maxTurns: MAX_TURNS, config: SERVED[c.api].config(c), ...input };
  const choice = toolChoice(c);
  if (choice) made.toolChoice = choice;
  return made;
}

// One run of Genkit's tool loop; its text and the whole conversation after it (`response.messages`,
// the request's messages, every turn of the loop and the last reply).
async function generated(ai, c, made) {
  if (!c.stream) {
    const response = await ai.generate(made);
    return { text: response.text, messages: response.messages };
  }
  const { stream, response } = ai.generateStream(made);
  for await (const _chunk of stream) {
    // Genkit reassembles the stream itself; the chunks are only drained.
  }
  const done = await response;
  return { text: done.text, messages: done.messages };
}

// A restored history: the saved conversation as Genkit stores one, its MessageData (a model turn's
// `toolRequest` parts under the call's id as `ref`, a tool turn's `toolResponse` parts under the same
// `ref`), provider-neutral, so that one begun on another provider continues on this model. A call saved
// without an id (Gemini before ids) has no `ref`, as Genkit reads one; Gemini's thought signature goes
// in the part's metadata, where the Google plugin keeps it.
function restoredMessages(c) {
  const messages = [];
  for (const message of c.history ?? []) {
    const parts = message.parts ?? [];
    if (message.role === "user" || message.role === "system") {
      messages.push({ role: message.role, content: [{ text: parts.map((p) => p.text ?? "").join("") }] });
    } else if (message.role === "assistant") {
      // A turn's empty text (a call's `content: null`) is no part of Genkit's, as its plugins read one.
      const content = parts.filter((part) => part.type !== "text" || part.text).map((part) => {
        if (part.type === "text") return { text: part.text };
        const signature = part.extra?.thoughtSignature ?? part.extra?.thought_signature;
        return {
          toolRequest: { name: part.name, input: part.arguments ?? {}, ...(part.call_id ? { ref: part.call_id } : {}) },
          ...(signature ? { metadata: { thoughtSignature: signature } } : {}),
        };
      });
      messages.push({ role: "model", content });
    } else if (message.role === "tool") {
      const content = parts.map((part) => ({
        toolResponse: { name: part.name ?? "", output: String(part.output ?? ""), ...(part.call_id ? { ref: part.call_id } : {}) },
      }));
      messages.push({ role: "tool", content });
    }
  }
  return messages;
}

// A hand-off across providers: the conversation begins on each leg's model, its tool requests returned
// to the application (`returnToolRequests`) and answered by it with the tools' own results, for the
// leg's steps, as Genkit's guide on handling tool calls yourself shows; the messages then go on to the
// case's model in the same Genkit instance, which holds both providers' plugins.
async function firstLegs(ai, c, tools) {
  let messages = [{ role: "user", content: [{ text: c.prompt }] }];
  for (const leg of c.legs) {
    if (!SERVED[leg.api]) {
      return { skipped: `the conversation begins on ${leg.api}, which Genkit cannot serve: ${UNSUPPORTED[leg.api] ?? "no plugin speaks it"}` };
    }
    const legCase = { ...c, ...leg, stream: false, server_tools: [] };
    for (let step = 0; step < leg.steps; step++) {
      const response = await ai.generate(options(legCase, tools, { messages, returnToolRequests: true }));
      messages = response.messages;
      const results = [];
      for (const request of response.toolRequests) {
        const { name, ref, input } = request.toolRequest;
        const output = await callTool(leg.tools_url, name, input, ref ?? null);
        results.push({ toolResponse: { name, output, ...(ref ? { ref } : {}) } });
      }
      if (results.length) messages = [...messages, { role: "tool", content: results }];
    }
  }
  return { messages };
}

// Each run of the session continues the same conversation: the run's user message appended to the
// messages Genkit returned, the loop run on them (`messages`), as Genkit's chat guides keep a history.
// A run cut off before its tool answered is one its tool interrupted: its messages end on the model's
// unanswered request, and the next run goes on from them.
async function run(c) {
  const served = SERVED[c.api];
  if (!served) return { skipped: UNSUPPORTED[c.api] ?? `the harness serves no ${c.api}` };
  const custom = c.tools.find((t) => t.type === "custom");
  if (custom) {
    return {
      skipped:
        `Genkit's ai.defineTool takes JSON input against an inputSchema or inputJsonSchema, and its plugins declare ` +
        `every tool as a function (@genkit-ai/compat-oai's toOpenAITool): it cannot declare the free-form custom tool '${custom.name}'`,
    };
  }
  const legApis = (c.legs ?? []).map((leg) => leg.api).filter((api) => SERVED[api] && api !== c.api);
  const ai = (c.interrupted?.length ? genkitBeta : genkit)({ plugins: [served.plugin(c), ...legApis.map((api) => SERVED[api].plugin({ ...c, ...c.legs.find((l) => l.api === api) }))] });
  const tools = defineTools(ai, c, serialized());
  if (!c.history?.length && !c.legs?.length && runsOf(c).length === 1) {
    return { output: (await generated(ai, c, options(c, tools, { prompt: c.prompt }))).text };
  }
  let messages;
  if (c.legs?.length) {
    // The leg's tool requests are returned to the harness, which answers them from the leg's replay.
    const handed = await firstLegs(ai, c, tools);
    if (handed.skipped) return handed;
    messages = handed.messages;
  } else {
    messages = restoredMessages(c);
  }
  let output = "";
  for (const prompt of runsOf(c)) {
    if (prompt !== null) messages = [...messages, { role: "user", content: [{ text: prompt }] }];
    ({ text: output, messages } = await generated(ai, c, options(c, tools, { messages })));
  }
  return { output };
}

function implementation() {
  const libraries = installedVersions(import.meta.url, PACKAGES);
  return {
    name: "genkit-js",
    version: libraries.genkit,
    libraries,
    apis: Object.keys(SERVED),
    unsupported: UNSUPPORTED,
    homepage: "https://genkit.dev",
    continues: ["history", "sessions", "handoffs"],
  };
}

await serve({ root: import.meta.url, implementation, run });
