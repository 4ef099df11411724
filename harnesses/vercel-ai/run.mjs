// The Vercel AI SDK under the toolcall-conformance harness protocol (docs/harness.md).
//
//   npm ci --prefix harnesses/vercel-ai
//   conformance run --harness 'node harnesses/vercel-ai/run.mjs'              # AI SDK 7 (vercel-ai)
//   conformance run --harness 'node harnesses/vercel-ai/run.mjs --major=6'    # vercel-ai-v6
//   conformance run --harness 'node harnesses/vercel-ai/run.mjs --major=5'    # vercel-ai-v5
//
// For each case the SDK's own multi-step tool loop runs (`generateText`, or `streamText` when the
// recording streamed, with `stopWhen: stepCountIs(n)`), through the provider package the AI SDK
// documents for the API, pointed at the replay server. Tools are declared with the SDK's `tool()`
// helper (provider tools with the provider's `tools.*` factories); each `execute` asks the replay
// server for the scenario's canned output. Nothing here speaks a provider's wire format: every
// request is the SDK's. The protocol itself is the shared harness kit's.
//
// AI SDK 5 and 6 are installed beside 7 under npm aliases (`ai-v5`, `@ai-sdk/openai-v5`, ...), each
// with the provider majors built for it, so that one tool loop puts the three majors side by side.
import { callTool, camelKeys, installedVersions, log, RunInterrupted, runsOf, serve, withoutNulls } from "@toolcall-conformance/harness-kit";
import { modelMessages } from "@toolcall-conformance/harness-kit/ai-sdk";

const MAX_STEPS = 12; // the longest recorded conversation has fewer turns; a loop that runs on fails the case
const MAX_APPROVAL_ROUNDS = 4;

// `--openai-chat=compatible` serves openai-chat through @ai-sdk/openai-compatible (the provider the AI
// SDK documents for OpenAI-compatible servers) instead of @ai-sdk/openai's `openai.chat()`, as its own
// matrix column.
const COMPATIBLE = process.argv.includes("--openai-chat=compatible");
const MAJOR = Number(process.argv.find((a) => a.startsWith("--major="))?.slice("--major=".length) ?? 7);
if (![5, 6, 7].includes(MAJOR)) {
  log(`unknown --major=${MAJOR}: the AI SDK majors installed here are 5, 6 and 7`);
  process.exit(2);
}

// The packages each major has: @ai-sdk/moonshotai and @ai-sdk/open-responses begin with AI SDK 6.
const ALL_PACKAGES = [
  "ai",
  "@ai-sdk/openai",
  "@ai-sdk/openai-compatible",
  "@ai-sdk/anthropic",
  "@ai-sdk/google",
  "@ai-sdk/mistral",
  "@ai-sdk/amazon-bedrock",
  "@ai-sdk/azure",
  "@ai-sdk/cohere",
  "@ai-sdk/moonshotai",
  "@ai-sdk/open-responses",
];
const FROM_MAJOR = { "@ai-sdk/moonshotai": 6, "@ai-sdk/open-responses": 6 };
const PACKAGES = ALL_PACKAGES.filter((name) => MAJOR >= (FROM_MAJOR[name] ?? 5));
const installedName = (name) => (MAJOR === 7 ? name : `${name}-v${MAJOR}`);
const load = async (name) => (PACKAGES.includes(name) ? import(installedName(name)) : {});

const { createAmazonBedrock } = await load("@ai-sdk/amazon-bedrock");
const { createAnthropic } = await load("@ai-sdk/anthropic");
const { createAzure } = await load("@ai-sdk/azure");
const { createCohere } = await load("@ai-sdk/cohere");
const { createGoogleGenerativeAI } = await load("@ai-sdk/google");
const { createMistral } = await load("@ai-sdk/mistral");
const { createMoonshotAI } = await load("@ai-sdk/moonshotai");
const { createOpenResponses } = await load("@ai-sdk/open-responses");
const { createOpenAI } = await load("@ai-sdk/openai");
const { createOpenAICompatible } = await load("@ai-sdk/openai-compatible");
const { convertToModelMessages, generateId, generateText, jsonSchema, stepCountIs, streamText, tool } = await load("ai");

// ---------------------------------------------------------------------------------------------
// Providers: one per API, configured the way each provider's documentation shows (a base URL and
// an API key), the base URL being the replay's.

const trimmed = (url) => url.replace(/\/+$/, "");

// VERCEL_AI_HARNESS_TRACE=1 logs every request the SDK sends to stderr (the suite shows a harness's
// stderr on a crash; `conformance serve` users see it directly). It only looks.
const TRACE = process.env.VERCEL_AI_HARNESS_TRACE === "1";
const traced = async (input, init) => {
  log(`>> ${init?.method ?? "GET"} ${input}`);
  if (typeof init?.body === "string") log(init.body);
  return fetch(input, init);
};
const transport = (settings) => (TRACE ? { ...settings, fetch: traced } : settings);

const PROVIDERS = {
  "openai-chat": (c) =>
    COMPATIBLE
      ? createOpenAICompatible(transport({ name: "openai-compatible", baseURL: c.base_url, apiKey: c.api_key }))(c.model)
      : createOpenAI(transport({ baseURL: c.base_url, apiKey: c.api_key })).chat(c.model),
  "openai-responses": (c) => createOpenAI(transport({ baseURL: c.base_url, apiKey: c.api_key })).responses(c.model),
  // The Foundry project endpoint (`.../api/projects/{p}/openai/v1`) is a base URL @ai-sdk/azure accepts as it is.
  "azure-foundry": (c) => createAzure(transport({ baseURL: c.base_url, apiKey: c.api_key })).responses(c.model),
  // The Anthropic and Google providers' base URLs include the API version (`https://api.anthropic.com/v1`,
  // `https://generativelanguage.googleapis.com/v1beta`); the replay's base URL does not.
  "anthropic-messages": (c) => createAnthropic(transport({ baseURL: `${trimmed(c.base_url)}/v1`, apiKey: c.api_key })).messages(c.model),
  gemini: (c) => createGoogleGenerativeAI(transport({ baseURL: `${trimmed(c.base_url)}/v1beta`, apiKey: c.api_key }))(c.model),
  "mistral-chat": (c) => createMistral(transport({ baseURL: c.base_url, apiKey: c.api_key }))(c.model),
  "kimi-chat": (c) => createMoonshotAI(transport({ baseURL: c.base_url, apiKey: c.api_key }))(c.model),
  "cohere-v2": (c) => createCohere(transport({ baseURL: `${trimmed(c.base_url)}/v2`, apiKey: c.api_key }))(c.model),
  "bedrock-converse": (c) =>
    createAmazonBedrock(
      transport({ baseURL: c.base_url, region: "us-east-1", accessKeyId: "AKIAREPLAYREPLAYREPL", secretAccessKey: c.api_key }),
    )(c.model),
  // Ollama's Anthropic- and OpenAI-compatible endpoints (/v1/messages, /v1/responses), reached as Ollama's
  // compatibility docs show for the providers' own clients: the provider pointed at Ollama's base URL.
  "ollama-messages": (c) => createAnthropic(transport({ baseURL: `${trimmed(c.base_url)}/v1`, apiKey: c.api_key })).messages(c.model),
  "ollama-responses": (c) => createOpenAI(transport({ baseURL: c.base_url, apiKey: c.api_key })).responses(c.model),
  // Open Responses servers (the Vercel AI Gateway's /v1/responses among them) take the endpoint's full URL.
  openresponses: (c) => createOpenResponses(transport({ name: "openresponses", url: `${trimmed(c.base_url)}/responses`, apiKey: c.api_key }))(c.model),
};

// The providerOptions key each API's provider reads.
const OPTIONS_KEY = {
  "openai-chat": COMPATIBLE ? "openaiCompatible" : "openai",
  "openai-responses": "openai",
  "azure-foundry": "azure",
  "anthropic-messages": "anthropic",
  gemini: "google",
  "mistral-chat": "mistral",
  "kimi-chat": "moonshotai",
  "cohere-v2": "cohere",
  "bedrock-converse": "bedrock",
  openresponses: "openresponses",
  "ollama-messages": "anthropic",
  "ollama-responses": "openai",
};

const UNSUPPORTED = {
  "ollama-chat":
    "the AI SDK has no first-party provider for Ollama's native /api/chat; Ollama's OpenAI-compatible " +
    "/v1/chat/completions is the openai-chat API (served through @ai-sdk/openai or @ai-sdk/openai-compatible)",
};

// An API whose provider package has no release for this major is not served.
const PROVIDER_PACKAGE = { "kimi-chat": "@ai-sdk/moonshotai", openresponses: "@ai-sdk/open-responses" };
for (const [api, name] of Object.entries(PROVIDER_PACKAGE)) {
  if (PACKAGES.includes(name)) continue;
  delete PROVIDERS[api];
  UNSUPPORTED[api] = `${name} has no release for AI SDK ${MAJOR} (its first major is built for AI SDK ${FROM_MAJOR[name]})`;
}

// ---------------------------------------------------------------------------------------------
// Tools.

const askReplay = (c, name, args, callId) => callTool(c.tools_url, name, args, callId);

function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// A recorded function tool's declaration, by name, in any API's layout (OpenAI Chat's nested
// `function`, Gemini's `functionDeclarations`, Bedrock's `toolSpec`).
function recordedDeclarations(c) {
  const byName = new Map();
  const visit = (entry) => {
    if (entry === null || typeof entry !== "object") return;
    if (Array.isArray(entry.functionDeclarations)) entry.functionDeclarations.forEach(visit);
    else if (entry.toolSpec) visit(entry.toolSpec);
    else if (entry.function && typeof entry.function === "object") byName.set(entry.function.name, entry.function);
    else if (typeof entry.name === "string") byName.set(entry.name, entry);
  };
  (c.recorded_tools ?? []).forEach(visit);
  for (const entry of c.settings?.body?.toolConfig?.tools ?? []) visit(entry);
  return byName;
}

// Fields of a recorded function declaration beyond name, description and schema (Anthropic's
// `defer_loading`, `allowed_callers`, `cache_control`; OpenAI's `defer_loading`, `strict`) are
// provider options of the tool in the AI SDK.
const DECLARATION_FIELDS = new Set(["type", "name", "description", "parameters", "input_schema", "inputSchema", "function"]);

function toolProviderOptions(c, declaration) {
  if (!declaration) return undefined;
  const extra = Object.fromEntries(Object.entries(declaration).filter(([k]) => !DECLARATION_FIELDS.has(k)));
  if (Object.keys(extra).length === 0) return undefined;
  return { [OPTIONS_KEY[c.api]]: camelKeys(extra) };
}

function functionTool(c, spec, declaration) {
  return tool({
    description: spec.description ?? "",
    inputSchema: jsonSchema(spec.parameters ?? { type: "object", properties: {} }),
    providerOptions: toolProviderOptions(c, declaration),
    execute: async (input, { toolCallId }) => askReplay(c, spec.name, input, toolCallId),
  });
}

// The provider-tool factories of each API's provider (`openai.tools.webSearch()`, ...), found by the
// tool id each one makes ("openai.web_search"), so that a recorded provider tool is declared with the
// provider's own factory. A recorded wire type names its tool id after the provider's prefix, except
// where the SDK's id drops a word.
const TOOL_PREFIX = {
  "openai-responses": "openai",
  "azure-foundry": "openai",
  "openai-chat": "openai",
  "anthropic-messages": "anthropic",
  gemini: "google",
};
const ID_ALIASES = {
  "openai.computer_use_preview": "openai.computer",
  "anthropic.tool_search_tool_regex_20251119": "anthropic.tool_search_regex_20251119",
  "anthropic.tool_search_tool_bm25_20251119": "anthropic.tool_search_bm25_20251119",
};
const FACTORIES = {
  openai: () => createOpenAI({ apiKey: "x" }).tools,
  anthropic: () => createAnthropic({ apiKey: "x" }).tools,
  google: () => createGoogleGenerativeAI({ apiKey: "x" }).tools,
};
const factoryIndex = new Map();

function factoriesOf(prefix) {
  if (!factoryIndex.has(prefix)) {
    const index = new Map();
    for (const factory of Object.values(FACTORIES[prefix]())) {
      for (const probe of [{}, { model: "x" }, { serverLabel: "x" }]) {
        try {
          const made = factory(probe);
          if (made?.id) {
            index.set(made.id, factory);
            break;
          }
        } catch {
          // a factory that needs other arguments is tried with the next probe
        }
      }
    }
    factoryIndex.set(prefix, index);
  }
  return factoryIndex.get(prefix);
}

// Provider tools the application executes: the item type the replay names each call by, what the
// tool's execute receives as the call's arguments, and the canned output in the tool's output type.
const CLIENT_EXECUTED = {
  "openai.local_shell": {
    call: "local_shell_call",
    args: (input) => input.action,
    output: (text) => ({ output: text }),
  },
  "openai.shell": {
    call: "shell_call",
    args: (input) => input.action,
    output: (text) => {
      const value = parsed(text);
      const runs = Array.isArray(value) ? value : [value ?? { stdout: text }];
      return {
        output: runs.map((run) => ({
          stdout: String(run?.stdout ?? ""),
          stderr: String(run?.stderr ?? ""),
          outcome: { type: "exit", exitCode: Number(run?.exit_code ?? run?.exitCode ?? 0) },
        })),
      };
    },
  },
  "openai.apply_patch": {
    call: "apply_patch_call",
    args: (input) => input.operation,
    output: (text) => ({ status: "completed", output: text }),
  },
  "openai.computer": {
    call: "computer_call",
    args: (input) => (input.actions?.length === 1 ? input.actions[0] : input.actions),
    output: (text) => {
      const value = parsed(text) ?? {};
      const url = value.image_url ?? value.imageUrl ?? value.output?.image_url ?? text;
      return { output: { type: "computer_screenshot", imageUrl: String(url) } };
    },
  },
  "openai.tool_search": {
    call: "tool_search_call",
    args: (input) => input.arguments,
    output: (text) => {
      const value = parsed(text);
      return { tools: Array.isArray(value) ? value : (value?.tools ?? []) };
    },
  },
};

// Gemini declares provider tools as `{"googleSearch": {}}`, the others as `{"type": "web_search", ...}`.
function providerToolType(entry) {
  if (typeof entry?.type === "string") return entry.type;
  const keys = Object.keys(entry ?? {}).filter((k) => k !== "functionDeclarations");
  return keys.length === 1 ? keys[0].replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`) : undefined;
}

function providerTools(c) {
  const prefix = TOOL_PREFIX[c.api];
  const tools = {};
  const missing = [];
  for (const entry of c.recorded_tools ?? []) {
    const type = providerToolType(entry);
    if (!type || type === "function" || type === "custom" || entry.functionDeclarations || entry.input_schema) continue;
    if (!prefix) {
      missing.push(type);
      continue;
    }
    const id = ID_ALIASES[`${prefix}.${type}`] ?? `${prefix}.${type}`;
    const factory = factoriesOf(prefix).get(id);
    if (!factory) {
      missing.push(type);
      continue;
    }
    const { type: _t, name, ...rest } = typeof entry.type === "string" ? entry : (Object.values(entry)[0] ?? {});
    const args = camelKeys(withoutNulls(rest));
    const executed = CLIENT_EXECUTED[id];
    if (executed) {
      args.execute = async (input, { toolCallId }) =>
        executed.output(await askReplay(c, executed.call, executed.args(input ?? {}), toolCallId));
    }
    tools[name ?? type] = factory(args);
  }
  return { tools, missing };
}

const PROVIDER_PACKAGES = { openai: "@ai-sdk/openai", anthropic: "@ai-sdk/anthropic", google: "@ai-sdk/google" };

function installedRelease(name) {
  return `${name} ${installedVersions(import.meta.url, [installedName(name)])[installedName(name)]}`;
}

// A recorded provider tool the provider's factories cannot make: the provider release, and the tool id it
// would have.
function lackedProviderTools(c, missing) {
  const prefix = TOOL_PREFIX[c.api];
  if (!prefix) return `the AI SDK's ${c.api} provider has no provider tools: it cannot declare ${missing.join(", ")}`;
  const ids = missing.map((type) => ID_ALIASES[`${prefix}.${type}`] ?? `${prefix}.${type}`);
  return (
    `${installedRelease(PROVIDER_PACKAGES[prefix])} (AI SDK ${MAJOR}) has no provider tool for ${missing.join(", ")} on ${c.api}: ` +
    `its \`tools\` make no ${ids.join(", ")}`
  );
}

// Request options the recording used that the provider release has no option for: @ai-sdk/anthropic 2
// (AI SDK 5) reads neither `mcpServers` from its provider options nor `allowedCallers` from a tool's.
function lackedOptions(c) {
  if (MAJOR !== 5 || c.api !== "anthropic-messages") return undefined;
  const release = installedRelease("@ai-sdk/anthropic");
  if (Array.isArray(c.settings?.body?.mcp_servers)) {
    return `${release} (AI SDK 5) has no mcpServers provider option: it cannot declare the recorded MCP servers`;
  }
  const caller = c.tools.find((t) => t.allowed_callers?.length);
  if (caller) return `${release} (AI SDK 5) has no allowedCallers tool option: it cannot declare allowed_callers on '${caller.name}'`;
  return undefined;
}

function declareTools(c) {
  const declarations = recordedDeclarations(c);
  const tools = {};
  for (const spec of c.tools) {
    if (spec.type === "custom") {
      // Free-form custom tools exist in the AI SDK for OpenAI's Responses API only.
      if (c.api !== "openai-responses" && c.api !== "azure-foundry") {
        return { skip: `the AI SDK declares custom (free-form) tools for the OpenAI Responses API only (openai.tools.customTool); ${c.api} has none` };
      }
      const customTool = createOpenAI({ apiKey: "x" }).tools.customTool;
      if (!customTool) return { skip: `@ai-sdk/openai for AI SDK ${MAJOR} has no custom (free-form) tools (openai.tools.customTool)` };
      const custom = customTool({ name: spec.name, description: spec.description ?? "" });
      custom.execute = async (input, { toolCallId }) => askReplay(c, spec.name, { input }, toolCallId);
      tools[spec.name] = custom;
      continue;
    }
    tools[spec.name] = functionTool(c, spec, declarations.get(spec.name));
  }
  const provided = providerTools(c);
  if (provided.missing.length) return { skip: lackedProviderTools(c, provided.missing) };
  const lacked = lackedOptions(c);
  if (lacked) return { skip: lacked };
  return { tools: { ...tools, ...provided.tools } };
}

// ---------------------------------------------------------------------------------------------
// Request settings the recording used, where the SDK lets an application set them.

const CHOICES = { any: "required", auto: "auto", none: "none", required: "required", validated: "required" };

// Every API's spelling of a tool choice: OpenAI's "required" / {type: "function", name}, Anthropic's
// {type: "any"} / {type: "tool", name}, Bedrock's {any: {}} / {tool: {name}}, Gemini's
// functionCallingConfig {mode: "ANY", allowedFunctionNames}.
function toolChoice(choice) {
  if (choice == null) return undefined;
  if (typeof choice === "string") return CHOICES[choice.toLowerCase()];
  if (choice.mode) {
    const only = choice.allowedFunctionNames ?? choice.allowed_function_names;
    if (only?.length === 1 && String(choice.mode).toLowerCase() !== "none") return { type: "tool", toolName: only[0] };
    return CHOICES[String(choice.mode).toLowerCase()];
  }
  const name = choice.name ?? choice.function?.name ?? choice.tool?.name;
  if (name) return { type: "tool", toolName: name };
  if (typeof choice.type === "string") return CHOICES[choice.type];
  return Object.keys(choice).map((key) => CHOICES[key]).find(Boolean);
}

function callSettings(c) {
  const body = c.settings?.body ?? {};
  const key = OPTIONS_KEY[c.api];
  const settings = { providerOptions: { [key]: {} }, headers: {} };
  const options = settings.providerOptions[key];
  const maxTokens =
    body.max_tokens ?? body.max_output_tokens ?? body.max_completion_tokens ?? body.inferenceConfig?.maxTokens ?? body.generationConfig?.maxOutputTokens;
  if (typeof maxTokens === "number") settings.maxOutputTokens = maxTokens;
  const choice = toolChoice(body.tool_choice ?? body.toolConfig?.toolChoice ?? body.toolConfig?.functionCallingConfig);
  if (choice) settings.toolChoice = choice;
  if (typeof body.store === "boolean") options.store = body.store;
  if (typeof body.parallel_tool_calls === "boolean") options.parallelToolCalls = body.parallel_tool_calls;
  if (Array.isArray(body.mcp_servers)) options.mcpServers = camelKeys(body.mcp_servers);
  if (body.generationConfig?.thinkingConfig) options.thinkingConfig = body.generationConfig.thinkingConfig;
  if (body.reasoning && typeof body.reasoning === "object") {
    if (body.reasoning.effort) options.reasoningEffort = body.reasoning.effort;
    if (body.reasoning.summary) options.reasoningSummary = body.reasoning.summary;
  }
  // Beta headers name features the recording used; the Anthropic provider merges them with its own.
  for (const [name, value] of Object.entries(c.settings?.headers ?? {})) {
    if (name.toLowerCase().endsWith("-beta")) settings.headers[name] = value;
  }
  return settings;
}

// ---------------------------------------------------------------------------------------------
// The loop.

async function runOnce(c, model, tools, settings, input) {
  const common = {
    model,
    tools,
    ...input,
    ...settings,
    maxRetries: 0,
    stopWhen: stepCountIs(MAX_STEPS),
  };
  if (!c.stream) {
    const result = await generateText(common);
    return { text: result.text, content: result.content, messages: stepMessages(result, result.response) };
  }
  let failure;
  const result = streamText({ ...common, onError: ({ error }) => (failure ??= error) });
  for await (const part of result.fullStream) {
    if (part.type === "error") failure ??= part.error;
  }
  if (failure) throw failure;
  const response = await result.response;
  const all = await result.responseMessages;
  return { text: await result.text, content: await result.content, messages: all ?? response.messages };
}

// Every step's messages: AI SDK 7 keeps them in `responseMessages` and only the final step's in
// `response.messages`; AI SDK 5 and 6 keep every step's in `response.messages`.
function stepMessages(result, response) {
  return result.responseMessages ?? response.messages;
}

// A restored history: the saved conversation as the AI SDK stores it (the ModelMessages an application
// keeps from `response.messages`), provider-neutral, so that one begun on another provider continues
// here with the new model as the AI SDK documents (the kit's `modelMessages`). A call saved without an
// id (Gemini before ids) is stored under the id the AI SDK mints for it as it reads the response
// (`generateId`), and its result, which comes in the same order, under the same id. A provider's opaque
// field goes where the SDK keeps it: Gemini's thought signature in the part's `providerOptions.google`.
const SIGNATURE_KEY = { gemini: "google", "gemini-interactions": "google", "anthropic-messages": "anthropic" };
const restoredMessages = (c) => modelMessages(c, { mintId: generateId, signatureKeys: SIGNATURE_KEY });

// Each run of the session continues the same ModelMessage list: the run's user message appended, the
// SDK's loop run on the whole list, its `response.messages` appended, as the AI SDK's chatbot guides
// keep a conversation. A run cut off in a tool is no run the AI SDK returns messages for.
async function run(c) {
  const declared = declareTools(c);
  if (declared.skip) return { skipped: declared.skip };
  const model = PROVIDERS[c.api](c);
  const settings = callSettings(c);
  if (c.interrupted?.length) return chatRuns(c, model, declared, settings);
  let messages;
  if (c.legs?.length) {
    const handed = await firstLegs(c);
    if (handed.skipped) return handed;
    messages = handed.messages;
  } else {
    messages = restoredMessages(c);
  }
  let outcome;
  for (const prompt of runsOf(c)) {
    if (prompt !== null) messages.push({ role: "user", content: prompt });
    // A plain case is sent as the `prompt` the SDK's guides start with; a continued one as its messages.
    const input = !c.history?.length && runsOf(c).length === 1 ? { prompt } : { messages };
    outcome = await approved(c, model, declared, settings, messages, await runOnce(c, model, declared.tools, settings, input));
    messages = [...messages, ...outcome.messages];
  }
  return { ok: true, output: outcome?.text ?? "" };
}

// A session whose run is cut off before its tool answered, kept the way the AI SDK's chatbot guides keep
// a chat: its UIMessages, each run streamed (`streamText` on `convertToModelMessages` of them) and read
// back through `toUIMessageStream({ originalMessages, onFinish })`, which hands over the chat's messages
// when a run ends, stopped or not. The user stops the run (the `abortSignal`) while its tool runs, as a
// chat's stop button does; what `onFinish` hands over is the next run's chat.
async function chatRuns(c, model, declared, settings) {
  if (c.history?.length || c.legs?.length) throw new Error("the harness keeps a stopped chat's UIMessages from its first run only");
  let chat = [];
  let output = "";
  for (const prompt of runsOf(c)) {
    if (prompt !== null) chat = [...chat, { id: generateId(), role: "user", parts: [{ type: "text", text: prompt }] }];
    const stop = new AbortController();
    const tools = Object.fromEntries(Object.entries(declared.tools).map(([name, t]) => [name, stoppable(t, stop)]));
    const result = streamText({
      model,
      tools,
      messages: await convertToModelMessages(chat),
      ...settings,
      maxRetries: 0,
      stopWhen: stepCountIs(MAX_STEPS),
      abortSignal: stop.signal,
    });
    let kept;
    let failure;
    const stream = result.toUIMessageStream({
      originalMessages: chat,
      onFinish: ({ messages }) => (kept = messages),
      // The chat would show a masked message; the run's error is the case's.
      onError: (error) => {
        failure ??= error;
        return String(error?.message ?? error);
      },
    });
    for await (const _part of stream) {
      // The chat's client would render these; the harness only drains them.
    }
    if (failure) throw failure;
    if (kept === undefined) throw new Error("toUIMessageStream ended without handing over the chat's messages");
    chat = kept;
    if (!stop.signal.aborted) output = await result.text;
  }
  return { ok: true, output };
}

// A tool whose call is cut off stops the run (the user's stop) instead of answering.
function stoppable(t, stop) {
  if (typeof t.execute !== "function") return t;
  return {
    ...t,
    execute: async (input, options) => {
      try {
        return await t.execute(input, options);
      } catch (error) {
        if (!(error instanceof RunInterrupted)) throw error;
        stop.abort(error);
        throw error;
      }
    },
  };
}

// A hand-off across providers: the conversation begins on each leg's provider, the SDK's loop stopped
// after running the calls of the leg's last step (`stopWhen: stepCountIs(steps)`), and the messages it
// returns are continued on the case's model, as the AI SDK documents switching models mid-conversation.
async function firstLegs(c) {
  let messages = [{ role: "user", content: c.prompt }];
  for (const leg of c.legs) {
    if (!PROVIDERS[leg.api]) return { skipped: `the conversation begins on ${leg.api}: ${UNSUPPORTED[leg.api] ?? `${COLUMN} does not serve it`}` };
    const legCase = { ...c, ...leg, server_tools: [] };
    const declared = declareTools(legCase);
    if (declared.skip) return { skipped: declared.skip };
    const result = await generateText({
      model: PROVIDERS[leg.api](legCase),
      tools: declared.tools,
      messages,
      ...callSettings(legCase),
      maxRetries: 0,
      stopWhen: stepCountIs(leg.steps),
    });
    messages = [...messages, ...stepMessages(result, result.response)];
  }
  return { messages };
}

// A tool that needs approval (an MCP server's with `require_approval`) stops the loop with an approval
// request; the application answers it in a tool message and calls the SDK again, as the AI SDK's
// tool-approval guide shows. The replay says whether to approve ("true"). The outcome's messages are
// every message after `start`.
async function approved(c, model, declared, settings, start, first) {
  let messages = [...start];
  let outcome = first;
  const added = [];
  for (let round = 0; round < MAX_APPROVAL_ROUNDS; round++) {
    const requests = (outcome.content ?? []).filter((part) => part.type === "tool-approval-request");
    if (requests.length === 0) break;
    const responses = [];
    for (const request of requests) {
      const call = request.toolCall ?? {};
      // The SDK names a provider's MCP tool `mcp.<tool>`; the recording names the tool.
      const name = call.providerExecuted && !(call.toolName in declared.tools) ? call.toolName.replace(/^[^.]*\./, "") : call.toolName;
      const verdict = await askReplay(c, name, call.input, call.toolCallId);
      // A provider-executed call's approval goes to the provider (an MCP server's, run by OpenAI);
      // the SDK forwards only responses marked so.
      responses.push({
        type: "tool-approval-response",
        approvalId: request.approvalId,
        approved: String(verdict).trim() === "true",
        ...(call.providerExecuted ? { providerExecuted: true } : {}),
      });
    }
    const answered = [...outcome.messages, { role: "tool", content: responses }];
    added.push(...answered);
    messages = [...messages, ...answered];
    outcome = await runOnce(c, model, declared.tools, settings, { messages });
  }
  return { ...outcome, messages: [...added, ...outcome.messages] };
}

const COLUMN = MAJOR === 7 ? "vercel-ai" : `vercel-ai-v${MAJOR}`;

function compatibleOnly() {
  const reason = `this column serves openai-chat through @ai-sdk/openai-compatible only; the ${COLUMN} column serves the rest`;
  return Object.fromEntries([...Object.keys(PROVIDERS), ...Object.keys(UNSUPPORTED)].filter((api) => api !== "openai-chat").map((api) => [api, reason]));
}

// An error's message with the HTTP status and the body the provider package kept on it.
function describe(error) {
  const parts = [String(error?.message ?? error)];
  if (error?.statusCode) parts.push(`(HTTP ${error.statusCode})`);
  const body = error?.responseBody ?? error?.lastError?.responseBody;
  if (body) parts.push(`body: ${String(body).slice(0, 500)}`);
  return parts.join(" ");
}

function implementation() {
  // The aliases (`ai-v5`) are reported under the packages' own names.
  const installed = installedVersions(import.meta.url, PACKAGES.map(installedName));
  const libraries = Object.fromEntries(PACKAGES.map((name) => [name, installed[installedName(name)]]));
  return {
    name: COMPATIBLE ? `${COLUMN}-openai-compatible` : COLUMN,
    version: libraries.ai,
    libraries,
    apis: COMPATIBLE ? ["openai-chat"] : Object.keys(PROVIDERS),
    unsupported: COMPATIBLE ? compatibleOnly() : UNSUPPORTED,
    homepage: "https://ai-sdk.dev",
    continues: ["history", "sessions", "handoffs"],
    notes: COMPATIBLE
      ? "openai-chat through @ai-sdk/openai-compatible's createOpenAICompatible"
      : "openai-chat through @ai-sdk/openai's openai.chat()" +
        (PROVIDERS["kimi-chat"] ? "; kimi-chat through @ai-sdk/moonshotai; openresponses through @ai-sdk/open-responses" : ""),
  };
}

await serve({ root: import.meta.url, implementation, run, describe });
