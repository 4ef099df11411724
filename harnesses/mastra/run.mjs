// Mastra (@mastra/core) under the toolcall-conformance harness protocol (docs/harness.md): for each
// case a Mastra Agent with the case's tools (`createTool`, the case's JSON Schema as its input
// schema) runs its own tool loop (`agent.generate`, or `agent.stream` when the recording streamed)
// through Mastra's model router, pointed at the replay server.
//
//   npm ci --prefix harnesses/mastra
//   conformance run --harness 'node harnesses/mastra/run.mjs'
//
// The protocol itself is the shared harness kit's; this file holds Mastra's tool loop only.
import { randomUUID } from "node:crypto";

import { callTool as askReplay, camelKeys, installedVersions, RunInterrupted, runsOf, serve, withoutNulls } from "@toolcall-conformance/harness-kit";
import { modelMessages } from "@toolcall-conformance/harness-kit/ai-sdk";

// Mastra sends usage telemetry and refreshes its model registry over the network by default.
process.env.MASTRA_TELEMETRY_DISABLED = "1";
process.env.MASTRA_OFFLINE = "1";

const { Agent } = await import("@mastra/core/agent");
const { createTool } = await import("@mastra/core/tools");
// Provider tools, as Mastra documents them: the AI SDK provider's own factories (the releases Mastra's
// router bundles), passed among the agent's tools.
const { createAnthropic } = await import("@ai-sdk/anthropic");
const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
const { createOpenAI } = await import("@ai-sdk/openai");

// The longest recorded conversation has fewer turns; a loop that runs on fails the case.
const MAX_STEPS = 12;

const PACKAGES = ["@mastra/core", "@mastra/schema-compat", "@ai-sdk/anthropic", "@ai-sdk/google", "@ai-sdk/openai", "zod"];

const trimmed = (url) => url.replace(/\/+$/, "");

// The model router's configuration for each API, as Mastra documents it: an OpenAI-compatible
// endpoint is `{ id, url, apiKey }` (Chat Completions, or Responses with `api: "responses"`); a
// provider of the router's own is its `provider/model` id, its base URL the `<PROVIDER>_BASE_URL`
// variable (the router reads MISTRAL_BASE_URL for Mistral, whose registry entry has a URL; the
// Anthropic provider it bundles reads ANTHROPIC_BASE_URL itself).
const MODELS = {
  "openai-chat": (c) => ({ id: `openai/${c.model}`, url: c.base_url, apiKey: c.api_key }),
  "openai-responses": (c) => ({ id: `openai/${c.model}`, url: c.base_url, apiKey: c.api_key, api: "responses" }),
  "kimi-chat": (c) => ({ id: `moonshotai/${c.model}`, url: c.base_url, apiKey: c.api_key }),
  "anthropic-messages": (c) => routed(c, "anthropic", "ANTHROPIC_BASE_URL", `${trimmed(c.base_url)}/v1`),
  "mistral-chat": (c) => routed(c, "mistral", "MISTRAL_BASE_URL", c.base_url),
  // The router cannot point Google at another base URL (Google's registry entry has no URL, so no
  // GOOGLE_BASE_URL is read, and the @ai-sdk/google it bundles reads no base-URL variable), so Gemini is an
  // AI SDK model handed to the Agent, as Mastra takes any AI SDK provider's model: @ai-sdk/google at the
  // release the router bundles, its base URL including the API version as the provider's docs show.
  gemini: (c) =>
    createGoogleGenerativeAI({ baseURL: `${trimmed(c.base_url)}/v1beta`, apiKey: c.api_key })(c.model.replace(/^.*models\//, "")),
};

function routed(c, provider, variable, baseUrl) {
  process.env[variable] = baseUrl;
  return { id: `${provider}/${c.model.replace(/^.*models\//, "")}`, apiKey: c.api_key };
}

const UNSUPPORTED = {
  "azure-foundry": "Mastra's Azure gateway speaks Azure OpenAI deployments, not a Foundry project endpoint",
  openresponses: "Mastra's model router has no Open Responses provider",
  "bedrock-converse": "Mastra's model router has no Amazon Bedrock provider (it takes an AI SDK Bedrock model instead)",
  "cohere-v2": "Mastra's model router has no Cohere provider",
  "ollama-chat": "Mastra's model router reaches Ollama through its OpenAI-compatible endpoint (openai-chat), not /api/chat",
};

// The provider-tool factories of each API's provider, found by the tool id each makes
// ("anthropic.web_search_20250305"); a recorded type names its id after the provider's prefix, except
// where the SDK's id drops a word.
const FACTORIES = {
  "anthropic-messages": { prefix: "anthropic", package: "@ai-sdk/anthropic", tools: () => createAnthropic({ apiKey: "x" }).tools },
  "openai-responses": { prefix: "openai", package: "@ai-sdk/openai", tools: () => createOpenAI({ apiKey: "x" }).tools },
  gemini: { prefix: "google", package: "@ai-sdk/google", tools: () => createGoogleGenerativeAI({ apiKey: "x" }).tools },
};
const ID_ALIASES = {
  "openai.computer_use_preview": "openai.computer",
  "anthropic.tool_search_tool_regex_20251119": "anthropic.tool_search_regex_20251119",
  "anthropic.tool_search_tool_bm25_20251119": "anthropic.tool_search_bm25_20251119",
};
// Provider tools the application runs: the item type the replay names each call by, what the tool's
// execute receives as the call's arguments, and the canned output in the tool's output type.
const CLIENT_EXECUTED = {
  "openai.local_shell": { call: "local_shell_call", args: (input) => input.action, output: (text) => ({ output: text }) },
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
          outcome: { type: "exit", exitCode: Number(run?.outcome?.exit_code ?? run?.exit_code ?? 0) },
        })),
      };
    },
  },
  "openai.apply_patch": { call: "apply_patch_call", args: (input) => input.operation, output: (text) => ({ status: "completed", output: text }) },
  "openai.tool_search": {
    call: "tool_search_call",
    args: (input) => input.arguments,
    output: (text) => {
      const value = parsed(text);
      return { tools: Array.isArray(value) ? value : (value?.tools ?? []) };
    },
  },
};

function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
const factoryIndex = new Map();

function factoriesOf(api) {
  if (!factoryIndex.has(api)) {
    const index = new Map();
    for (const factory of Object.values(FACTORIES[api].tools())) {
      for (const probe of [{}, { serverLabel: "x" }]) {
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
    factoryIndex.set(api, index);
  }
  return factoryIndex.get(api);
}

// Gemini declares provider tools as `{"googleSearch": {}}`, the others as `{"type": "web_search", ...}`.
function providerToolType(entry) {
  if (typeof entry?.type === "string") return entry.type;
  const keys = Object.keys(entry ?? {}).filter((k) => k !== "functionDeclarations" && k !== "function_declarations");
  return keys.length === 1 ? keys[0].replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`) : undefined;
}

function providerTools(c, callTool) {
  const tools = {};
  const missing = [];
  for (const entry of c.recorded_tools ?? []) {
    const type = providerToolType(entry);
    if (!type || type === "function" || type === "custom" || entry.input_schema) continue;
    const factories = FACTORIES[c.api];
    const id = factories ? (ID_ALIASES[`${factories.prefix}.${type}`] ?? `${factories.prefix}.${type}`) : undefined;
    const factory = id ? factoriesOf(c.api).get(id) : undefined;
    if (!factory) {
      missing.push(type);
      continue;
    }
    const { type: _type, name, ...rest } = typeof entry.type === "string" ? entry : (Object.values(entry)[0] ?? {});
    const args = camelKeys(withoutNulls(rest));
    const executed = CLIENT_EXECUTED[id];
    if (executed) {
      args.execute = async (input, options) =>
        executed.output(await callTool(executed.call, executed.args(input ?? {}), options?.toolCallId));
    }
    tools[name ?? type] = factory(args);
  }
  return { tools, missing };
}

function declareTools(c, callTool) {
  const tools = {};
  for (const spec of c.tools) {
    if (spec.type === "custom") {
      // Free-form custom tools exist for OpenAI's Responses API only, as @ai-sdk/openai's customTool.
      if (c.api !== "openai-responses") {
        return {
          skip:
            `Mastra's createTool takes JSON input against an inputSchema, and its free-form custom tool is @ai-sdk/openai's ` +
            `customTool, for the Responses API only: ${c.api} cannot declare '${spec.name}'`,
        };
      }
      const custom = createOpenAI({ apiKey: "x" }).tools.customTool({ name: spec.name, description: spec.description ?? "" });
      custom.execute = async (input, options) => callTool(spec.name, { input }, options?.toolCallId);
      tools[spec.name] = custom;
      continue;
    }
    tools[spec.name] = createTool({
      id: spec.name,
      description: spec.description ?? "",
      inputSchema: { type: "object", properties: {}, ...(spec.parameters ?? {}) },
      execute: async (input, context) => {
        try {
          return await callTool(spec.name, input, context?.agent?.toolCallId);
        } catch (error) {
          // A run cut off before its tool answered ends the way a Mastra tool ends an agent's run: it
          // suspends, and the run stops with the call unanswered.
          if (!(error instanceof RunInterrupted) || !context?.agent?.suspend) throw error;
          await context.agent.suspend({ reason: error.message });
          return undefined;
        }
      },
      // Who besides the model may call it (Anthropic code execution): @ai-sdk/anthropic's allowedCallers.
      ...(spec.allowed_callers && c.api === "anthropic-messages"
        ? { providerOptions: { anthropic: { allowedCallers: spec.allowed_callers } } }
        : {}),
    });
  }
  const provided = providerTools(c, callTool);
  if (provided.missing.length) {
    const factories = FACTORIES[c.api];
    if (!factories) return { skip: `Mastra passes through AI SDK provider tools only, and ${c.api} has no AI SDK provider here: it cannot declare ${provided.missing.join(", ")}` };
    const version = installedVersions(import.meta.url, [factories.package])[factories.package];
    return {
      skip:
        `Mastra declares provider tools with the AI SDK provider's factories, and ${factories.package} ${version} ` +
        `(the release Mastra's router bundles) has no provider tool for ${provided.missing.join(", ")}: ` +
        `its \`tools\` make no ${provided.missing.map((type) => ID_ALIASES[`${factories.prefix}.${type}`] ?? `${factories.prefix}.${type}`).join(", ")}`,
    };
  }
  return { tools: { ...tools, ...provided.tools } };
}

function toolChoice(c) {
  const choice = c.settings?.body?.tool_choice;
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (choice === "any" || choice?.type === "any") return "required";
  const name = choice?.name ?? choice?.function?.name;
  return name ? { type: "tool", toolName: name } : undefined;
}

// The recording's request settings, where Mastra lets an application set them: provider options for
// the OpenAI models (`store`, `parallel_tool_calls`, `reasoning`), Anthropic's MCP servers, and the
// output token limit.
function callSettings(c) {
  const body = c.settings?.body ?? {};
  const settings = {};
  const openai = {};
  if (typeof body.store === "boolean") openai.store = body.store;
  if (typeof body.parallel_tool_calls === "boolean") openai.parallelToolCalls = body.parallel_tool_calls;
  if (body.reasoning?.effort) openai.reasoningEffort = body.reasoning.effort;
  if (body.reasoning?.summary) openai.reasoningSummary = body.reasoning.summary;
  if (Object.keys(openai).length && (c.api === "openai-responses" || c.api === "openai-chat")) settings.providerOptions = { openai };
  // Anthropic's MCP connector: the servers go in the Anthropic provider's options (`mcpServers`).
  if (Array.isArray(body.mcp_servers) && c.api === "anthropic-messages") {
    settings.providerOptions = { anthropic: { mcpServers: camelKeys(withoutNulls(body.mcp_servers)) } };
  }
  const maxTokens = body.max_output_tokens ?? body.max_completion_tokens ?? body.max_tokens;
  if (typeof maxTokens === "number") settings.modelSettings = { maxOutputTokens: maxTokens };
  return settings;
}

function makeAgent(c, tools) {
  return new Agent({ id: "conformance", name: "conformance", instructions: "", model: MODELS[c.api](c), tools });
}

function runOptions(c, maxSteps) {
  const options = { maxSteps, ...callSettings(c) };
  const choice = toolChoice(c);
  if (choice) options.toolChoice = choice;
  return options;
}

// One run of the agent's loop on `input` (a prompt, or the conversation's messages); its text and the
// messages the run added (`response.messages`, the AI SDK ModelMessages of every step).
async function runOnce(c, agent, input, options) {
  if (!c.stream) {
    const result = await agent.generate(input, options);
    if (result.error) throw result.error;
    if (result.finishReason === "suspended") return { text: result.text ?? "", suspended: result.messages ?? [] };
    return { text: result.text ?? "", messages: result.response?.messages ?? [] };
  }
  const stream = await agent.stream(input, options);
  let failure;
  for await (const chunk of stream.fullStream) {
    if (chunk.type === "error") failure ??= chunk.payload?.error ?? chunk.error ?? chunk;
  }
  if (failure) throw failure instanceof Error ? failure : new Error(JSON.stringify(failure).slice(0, 1000));
  const response = await stream.response;
  return { text: (await stream.text) ?? "", messages: response?.messages ?? [] };
}

// A restored history: the saved conversation as the AI SDK ModelMessages Mastra's agents take as
// their input (MessageListInput), provider-neutral, so that one begun on another provider continues
// on this agent's model (the kit's `modelMessages`). A call saved without an id (Gemini before ids) is
// stored under a minted id, and its result, which comes in the same order, under the same id; Gemini's
// thought signature goes where the AI SDK's Google provider keeps it.
const restoredMessages = (c) => modelMessages(c, { mintId: randomUUID, signatureKeys: { gemini: "google" } });

// A hand-off across providers: the conversation begins on an agent on each leg's model, its loop
// stopped after the leg's steps (`maxSteps`), and the messages it returns go on to the agent on the
// case's model, as Mastra switches an agent's model over one conversation.
async function firstLegs(c) {
  let messages = [{ role: "user", content: c.prompt }];
  for (const leg of c.legs) {
    if (!MODELS[leg.api]) return { skipped: `the conversation begins on ${leg.api}: ${UNSUPPORTED[leg.api] ?? "Mastra's model router has no provider for it"}` };
    const legCase = { ...c, ...leg, stream: false, server_tools: [] };
    const legTool = (name, args, callId) => askReplay(leg.tools_url, name, args, callId);
    const declared = declareTools(legCase, legTool);
    if (declared.skip) return { skipped: declared.skip };
    const outcome = await runOnce(legCase, makeAgent(legCase, declared.tools), messages, runOptions(legCase, leg.steps));
    messages = [...messages, ...outcome.messages];
  }
  return { messages };
}

// Each run of the session continues the same message list: the run's user message appended, the agent
// run on the whole list, the messages it returns appended, as an application keeps a conversation
// without Mastra's memory. A run cut off in a tool is one its tool suspended (`context.agent.suspend`):
// the conversation goes on from the suspended result's messages.
async function run(c, { callTool }) {
  const model = MODELS[c.api];
  if (!model) return { skipped: UNSUPPORTED[c.api] ?? `the harness serves no ${c.api}` };
  const declared = declareTools(c, callTool);
  if (declared.skip) return { skipped: declared.skip };
  const agent = makeAgent(c, declared.tools);
  const options = runOptions(c, MAX_STEPS);
  if (!c.history?.length && !c.legs?.length && runsOf(c).length === 1) return { output: (await runOnce(c, agent, c.prompt, options)).text };
  let messages;
  if (c.legs?.length) {
    const handed = await firstLegs(c);
    if (handed.skipped) return handed;
    messages = handed.messages;
  } else {
    messages = restoredMessages(c);
  }
  let output = "";
  for (const prompt of runsOf(c)) {
    if (prompt !== null) messages.push({ role: "user", content: prompt });
    const outcome = await runOnce(c, agent, messages, options);
    // A suspended run has no response messages; its result's `messages` (MastraDBMessages) are the
    // conversation as Mastra holds it, its input and the unanswered call.
    messages = outcome.suspended ? [...outcome.suspended] : [...messages, ...outcome.messages];
    output = outcome.text;
  }
  return { output };
}

function implementation() {
  const libraries = installedVersions(import.meta.url, PACKAGES);
  return {
    name: "mastra",
    version: libraries["@mastra/core"],
    libraries,
    apis: Object.keys(MODELS),
    unsupported: UNSUPPORTED,
    homepage: "https://mastra.ai",
    continues: ["history", "sessions", "handoffs"],
    notes: "Agent.generate / Agent.stream with createTool tools, through Mastra's model router",
  };
}

await serve({ root: import.meta.url, implementation, run });
