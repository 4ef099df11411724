// LlamaIndex.TS's agent (`agent` from @llamaindex/workflow, an AgentWorkflow of one FunctionAgent) over
// its provider packages' LLMs, under the toolcall-conformance harness protocol (docs/harness.md).
//
//   npm ci --prefix harnesses/llamaindex-ts
//   conformance run --harness 'node harnesses/llamaindex-ts/run.mjs'
//
// The protocol itself is the shared harness kit's; this file holds the agent's tool loop only.
import { installedVersions, runsOf, serve } from "@toolcall-conformance/harness-kit";

const { FunctionTool, createMemory } = await import("llamaindex");
const { agent } = await import("@llamaindex/workflow");
const { OpenAI, OpenAIResponses } = await import("@llamaindex/openai");
const { Anthropic, AnthropicSession } = await import("@llamaindex/anthropic");
const { Gemini } = await import("@llamaindex/google");
const { Ollama } = await import("@llamaindex/ollama");
const { randomUUID } = await import("@llamaindex/env");

const PACKAGES = [
  "llamaindex",
  "@llamaindex/workflow",
  "@llamaindex/core",
  "@llamaindex/openai",
  "@llamaindex/anthropic",
  "@llamaindex/google",
  "@llamaindex/ollama",
  "@llamaindex/mistral",
];

// Each API's LLM, pointed at the case the way its package lets a caller set the endpoint.
const LLMS = {
  "openai-chat": (c) => new OpenAI({ model: c.model, apiKey: c.api_key, baseURL: c.base_url, maxRetries: 0 }),
  // Moonshot's guide points an OpenAI client at its base URL; LlamaIndex's OpenAI LLM takes any baseURL.
  "kimi-chat": (c) => new OpenAI({ model: c.model, apiKey: c.api_key, baseURL: c.base_url, maxRetries: 0 }),
  // OpenAIResponses sends the provider's own tools it is given (builtInTools) beside the agent's.
  "openai-responses": (c) =>
    new OpenAIResponses({ model: c.model, apiKey: c.api_key, baseURL: c.base_url, maxRetries: 0, builtInTools: builtInTools(c) }),
  // Open Responses servers implement the Responses API, which OpenAIResponses speaks at any baseURL.
  openresponses: (c) =>
    new OpenAIResponses({ model: c.model, apiKey: c.api_key, baseURL: c.base_url, maxRetries: 0, builtInTools: builtInTools(c) }),
  "anthropic-messages": (c) =>
    new Anthropic({
      model: c.model,
      apiKey: c.api_key,
      maxRetries: 0,
      session: new AnthropicSession({ apiKey: c.api_key, baseURL: c.base_url, maxRetries: 0 }),
      ...thinking(c),
    }),
  gemini: (c) => new Gemini({ model: c.model, apiKey: c.api_key, httpOptions: { baseUrl: c.base_url } }),
  "ollama-chat": (c) => new Ollama({ model: c.model, config: { host: c.base_url } }),
};

// The recording's extended thinking, asked for as the Anthropic LLM takes it (`additionalChatOptions.thinking`),
// with the recorded max_tokens (Anthropic refuses a budget that is not below it); nothing when it asked for none.
function thinking(c) {
  const asked = c.settings?.body?.thinking;
  if (asked?.type !== "enabled") return {};
  const maxTokens = c.settings?.body?.max_tokens;
  return { additionalChatOptions: { thinking: asked }, ...(typeof maxTokens === "number" ? { maxTokens } : {}) };
}

const UNSUPPORTED = {
  "mistral-chat":
    "@llamaindex/mistral's MistralAISession takes only an apiKey: its Mistral client cannot be pointed at another server",
  "azure-foundry": "LlamaIndex.TS has no Azure AI Foundry LLM",
  "bedrock-converse":
    "@llamaindex/aws's Bedrock LLM calls InvokeModel and InvokeModelWithResponseStream, not the Converse API",
  "cohere-v2": "@llamaindex/cohere ships a reranker (CohereRerank) only: LlamaIndex.TS has no Cohere chat LLM",
};

// The Responses tools the provider runs itself, given to OpenAIResponses as recorded: its `builtInTools` go into
// the request's `tools` as they are (openai/dist/index.js:2026-2045). A program's calls of the client's
// functions are function_call items the agent runs like any other; an MCP tool that asks no approval runs
// on the provider alone.
const SERVER_RUN = /^(web_search.*|file_search|code_interpreter|image_generation|programmatic_tool_calling)$/;
const serverRun = (entry) => SERVER_RUN.test(entry?.type ?? "") || (entry?.type === "mcp" && entry.require_approval === "never");

function builtInTools(c) {
  const recorded = [...(c.server_tools ?? []), ...(c.recorded_tools ?? [])].filter(serverRun);
  return [...new Map(recorded.map((entry) => [JSON.stringify(entry), entry])).values()];
}

// Why LlamaIndex.TS cannot declare a provider tool the case uses, on each API, or null when it can
// (paths under node_modules/@llamaindex/, at the versions package-lock.json pins).
const FUNCTIONS_ONLY = {
  "anthropic-messages":
    "@llamaindex/anthropic's Anthropic LLM sends the agent's tools as prepareToolsForAPI writes them (name, " +
    "description, input_schema; anthropic/dist/index.js:730-744), and its additionalChatOptions take `thinking` " +
    "only (AnthropicAdditionalChatOptions, anthropic/dist/index.d.ts:242)",
  gemini:
    "@llamaindex/google's Gemini LLM sets the request's tools to the agent's function declarations " +
    "(mapChatMessagesToGoogleFunctions, google/dist/index.js:1217-1226, set at :1771-1776), and the FunctionAgent " +
    "passes it no other options (workflow/dist/index.js:94-98)",
};
// OpenAIResponses starts a tool call only for a function_call item (isToolCallEvent, openai/dist/index.js:1845-1847;
// the agent always streams), so a built-in whose calls the client must answer is never answered.
const RUNS_FUNCTIONS = "LlamaIndex.TS's FunctionAgent runs only function_call items: OpenAIResponses reads a tool call from no other item (isToolCallEvent, openai/dist/index.js:1845-1847)";

function providerToolLimit(c) {
  const used = c.server_tools ?? [];
  if (!used.length) return null;
  const kinds = [...new Set(used.map((entry) => String(entry?.type)))].sort().join(", ");
  if (FUNCTIONS_ONLY[c.api]) return `${FUNCTIONS_ONLY[c.api]}: it cannot declare the provider tool ${kinds}`;
  const answered = used.filter((entry) => !serverRun(entry)).map((entry) => String(entry?.type));
  if (!answered.length) return null;
  if (answered.includes("mcp")) return `${RUNS_FUNCTIONS}: it has no answer to the MCP tool's approval requests (no mcp_approval_response)`;
  return `${RUNS_FUNCTIONS}: it cannot run the built-in tool ${[...new Set(answered)].sort().join(", ")}`;
}

// Each case tool as a FunctionTool with its JSON Schema; its implementation asks the replay for the output.
function declareTools(c, callTool) {
  const tools = [];
  for (const spec of c.tools) {
    if (spec.type === "custom") {
      return {
        skip: `a LlamaIndex tool (BaseTool) declares JSON Schema parameters only: it has no custom (free-form) tool like '${spec.name}'`,
      };
    }
    tools.push(
      FunctionTool.from(async (input) => callTool(spec.name, input ?? {}), {
        name: spec.name,
        description: spec.description ?? "",
        parameters: { type: "object", properties: {}, ...(spec.parameters ?? {}) },
      }),
    );
  }
  return { tools };
}

// A restored history as LlamaIndex ChatMessages, as the FunctionAgent itself writes them: an assistant
// message with `options.toolCall` ({id, name, input}), each result a user message with `options.toolResult`.
// A call saved without an id (Gemini before ids) gets the id LlamaIndex's own Gemini LLM would have
// given it (`call.id ?? randomUUID()`), and its result, which comes in the same order, the same id.
function restored(c) {
  const messages = [];
  let minted = [];
  for (const message of c.history ?? []) {
    const parts = message.parts ?? [];
    const text = parts.filter((p) => p.type === "text").map((p) => p.text).join("");
    if (message.role === "assistant") {
      const calls = parts.filter((p) => p.type === "tool_call");
      messages.push({
        role: "assistant",
        content: text,
        ...(calls.length
          ? {
              options: {
                toolCall: calls.map((p) => {
                  const id = p.call_id || randomUUID();
                  if (!p.call_id) minted.push({ name: p.name, id });
                  return { id, name: p.name, input: p.arguments ?? {} };
                }),
              },
            }
          : {}),
      });
    } else if (message.role === "tool") {
      for (const p of parts.filter((part) => part.type === "tool_result")) {
        const output = typeof p.output === "string" ? p.output : JSON.stringify(p.output);
        let id = p.call_id;
        if (!id) {
          const at = Math.max(0, minted.findIndex((m) => m.name === p.name));
          id = minted[at]?.id ?? "";
          minted = minted.filter((_, index) => index !== at);
        }
        messages.push({ role: "user", content: output, options: { toolResult: { id, result: output, isError: false } } });
      }
    } else {
      messages.push({ role: message.role === "system" ? "system" : "user", content: text });
    }
  }
  return messages;
}

function resultText(result) {
  const value = result?.data?.result;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map((part) => part?.text ?? "").join("");
  return String(value ?? "");
}

// The workflow runs its steps' handlers outside the promise `run` returns: an LLM that throws while it
// reads a stream (the OpenAI LLM on a delta without an id, the Anthropic SDK on the replay's error)
// throws past the workflow, which would end the process. An application keeps its process with these
// handlers; here the error becomes the case's, as if the run had rejected with it.
let failRun = null;
for (const event of ["uncaughtException", "unhandledRejection"]) {
  process.on(event, (error) => {
    if (failRun) return failRun(error);
    process.stderr.write(`${event} between cases: ${error?.stack ?? error}\n`);
    process.exit(1);
  });
}

function run(c, tools) {
  return new Promise((resolve, reject) => {
    failRun = reject;
    runCase(c, tools).then(resolve, reject);
  }).finally(() => {
    failRun = null;
  });
}

async function runCase(c, { callTool }) {
  if (!LLMS[c.api]) return { skipped: UNSUPPORTED[c.api] ?? `LlamaIndex.TS has no LLM for ${c.api}` };
  const llm = LLMS[c.api](c);
  // An LLM the FunctionAgent refuses outright (supportToolCall false, workflow/dist/index.js:41-42) fails with
  // that refusal first, whatever tools the case uses.
  const limit = llm.supportToolCall === false ? null : providerToolLimit(c);
  if (limit) return { skipped: limit };
  if (c.interrupted?.length) {
    return {
      skipped:
        "the AgentWorkflow answers a tool that throws with an error result (isError) and goes on " +
        "(executeToolCalls in @llamaindex/workflow): a run cannot be cut off before its tool answers",
    };
  }
  const declared = declareTools(c, callTool);
  if (declared.skip) return { skipped: declared.skip };
  // One memory for the whole session: the workflow adds each run's messages to it when the run ends.
  const workflow = agent({ llm, tools: declared.tools, memory: createMemory(), timeout: 60 });
  let chatHistory = restored(c);
  let output = "";
  for (const prompt of runsOf(c)) {
    const result = await workflow.run(prompt ?? undefined, chatHistory.length ? { chatHistory } : undefined);
    chatHistory = [];
    output = resultText(result);
  }
  return { output };
}

function implementation() {
  const libraries = installedVersions(import.meta.url, PACKAGES);
  return {
    name: "llamaindex-ts",
    version: libraries.llamaindex,
    libraries,
    apis: Object.keys(LLMS),
    unsupported: UNSUPPORTED,
    homepage: "https://ts.llamaindex.ai",
    continues: ["history", "sessions"],
    notes:
      "agent({ llm, tools, memory }) from @llamaindex/workflow with FunctionTools; the FunctionAgent always " +
      "streams (takeStep asks the LLM for a stream)",
  };
}

await serve({ root: import.meta.url, implementation, run });
