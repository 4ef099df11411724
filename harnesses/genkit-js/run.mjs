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
import { callTool, installedVersions, serve } from "@toolcall-conformance/harness-kit";

// Genkit stops a loop after `maxTurns` model calls with tool requests (5 by default); recordings may
// hold longer chains, and the replay already answers a turn past the end with an error.
const MAX_TURNS = 16;

const { genkit } = await import("genkit");
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
  return config;
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

async function run(c) {
  const served = SERVED[c.api];
  if (!served) return { skipped: UNSUPPORTED[c.api] ?? `the harness serves no ${c.api}` };
  const custom = c.tools.find((t) => t.type === "custom");
  if (custom) {
    return {
      skipped: `Genkit tools take JSON input against a schema; it cannot declare the free-form custom tool '${custom.name}'`,
    };
  }
  const ai = genkit({ plugins: [served.plugin(c)] });
  const inTurn = serialized();
  const tools = c.tools.map((t) =>
    ai.defineTool(
      {
        name: t.name,
        description: t.description ?? "",
        inputJsonSchema: t.parameters ?? { type: "object", properties: {} },
      },
      (input) => inTurn(() => callTool(c.tools_url, t.name, input, null)),
    ),
  );
  const options = {
    model: served.model(c),
    prompt: c.prompt,
    tools,
    maxTurns: MAX_TURNS,
    config: served.config(c),
  };
  const choice = toolChoice(c);
  if (choice) options.toolChoice = choice;
  if (!c.stream) return { output: (await ai.generate(options)).text };
  const { stream, response } = ai.generateStream(options);
  for await (const _chunk of stream) {
    // Genkit reassembles the stream itself; the chunks are only drained.
  }
  return { output: (await response).text };
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
  };
}

await serve({ root: import.meta.url, implementation, run });
