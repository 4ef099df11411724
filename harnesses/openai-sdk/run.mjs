// The OpenAI TypeScript SDK's own tool loops under the toolcall-conformance harness protocol
// (docs/harness.md): `client.chat.completions.runTools` on Chat Completions and the
// `ResponsesToolRunner` helper on the Responses API, each over the case's tools against the replay.
//
//   npm ci --prefix harnesses/openai-sdk
//   conformance run --harness 'node harnesses/openai-sdk/run.mjs'
//
// The protocol itself is the shared harness kit's; this file holds the SDK's tool loops only.
import { RunInterrupted, installedVersions, runsOf, serve } from "@toolcall-conformance/harness-kit";

const { default: OpenAI } = await import("openai");
const { ResponsesToolRunner } = await import("openai/helpers/responses-tool-runner");
const { ComputerToolset } = await import("openai/helpers/computer");

// The longest recorded conversation has fewer turns; a loop that runs on fails the case.
const MAX_TURNS = 12;

const PACKAGES = ["openai"];
const CHAT_APIS = ["openai-chat", "kimi-chat"];
const RESPONSES_APIS = ["openai-responses", "openresponses", "azure-foundry"];

const OPENAI_ONLY = "the OpenAI SDK speaks OpenAI's APIs only";
const UNSUPPORTED = Object.fromEntries(
  [
    "anthropic-messages",
    "gemini",
    "bedrock-converse",
    "mistral-chat",
    "ollama-chat",
    "cohere-v2",
    "azure-foundry",
  ].map((api) => [api, OPENAI_ONLY]),
);

// Body fields that are the conversation itself, or that the loops set.
const CONVERSATION = new Set(["model", "messages", "input", "tools", "stream", "stream_options"]);

function recordedBody(c) {
  return Object.fromEntries(Object.entries(c.settings?.body ?? {}).filter(([key]) => !CONVERSATION.has(key)));
}

function client(c) {
  return new OpenAI({
    apiKey: c.api_key,
    baseURL: c.base_url,
    maxRetries: 0,
    defaultHeaders: c.settings?.headers ?? {},
    defaultQuery: c.settings?.query ?? {},
  });
}

function historyOf(c, apis, form) {
  if (!c.history?.length) return { messages: [] };
  if (!apis.includes(c.history_api)) {
    return {
      skip:
        `${form} hold a conversation in its own API's wire form only: the SDK has no form for a ` +
        `conversation begun on ${c.history_api}`,
    };
  }
  return { messages: structuredClone(c.history_wire ?? []) };
}

// Chat Completions: runTools declares each function tool with its implementation (`function`) and
// `parse`, as the SDK's README shows; a custom (free-form) tool goes to the API as declared, since the
// runner passes every tool that is not a function through. Each run of a session continues the
// runner's own `messages`, with the run's user message appended.
function chatTools(c, callTool) {
  return c.tools.map((spec) =>
    spec.type === "custom"
      ? { type: "custom", custom: { name: spec.name, description: spec.description ?? "" } }
      : {
          type: "function",
          function: {
            name: spec.name,
            description: spec.description ?? "",
            parameters: { type: "object", properties: {}, ...(spec.parameters ?? {}) },
            parse: JSON.parse,
            function: async (args) => callTool(spec.name, args),
          },
        },
  );
}

function interrupted(error) {
  for (let cause = error, depth = 0; cause && depth < 4; cause = cause.cause, depth++) {
    if (cause instanceof RunInterrupted) return true;
  }
  return false;
}

async function chat(c, callTool) {
  const restored = historyOf(c, CHAT_APIS, "runTools's messages (ChatCompletionMessageParam)");
  if (restored.skip) return { skipped: restored.skip };
  const openai = client(c);
  const tools = chatTools(c, callTool);
  const body = recordedBody(c);
  let messages = restored.messages;
  let output = "";
  for (const prompt of runsOf(c)) {
    if (prompt !== null) messages = [...messages, { role: "user", content: prompt }];
    const runner = openai.chat.completions.runTools(
      { ...body, model: c.model, messages, tools, stream: Boolean(c.stream) },
      { maxChatCompletions: MAX_TURNS },
    );
    try {
      output = (await runner.finalContent()) ?? "";
    } catch (error) {
      // A run cut off in its tool ends there (the runner rethrows what the tool threw, as the cause of
      // its own error); the session goes on with the runner's messages, which hold the unanswered call.
      if (!interrupted(error)) throw error;
      output = "";
    }
    messages = [...runner.messages];
  }
  return { output };
}

// Responses: the ResponsesToolRunner registers each function tool with its `execute`; the recording's
// server tools (web search, file search, code interpreter, image generation, MCP) go in the request's
// `tools` as recorded. The runner sends its own explicit input history every turn and refuses
// `previous_response_id`; a session's next run continues the history its ledger checkpoint holds.
function responsesFunctions(c, callTool) {
  const functions = [];
  for (const spec of c.tools) {
    if (spec.type === "custom") {
      return {
        skip:
          `ResponsesToolRunner registers functions, a BrowserToolset and a ComputerToolset only ` +
          `(ResponsesRunnerTools): it cannot run the custom (free-form) tool '${spec.name}'`,
      };
    }
    functions.push({
      tool: {
        type: "function",
        name: spec.name,
        description: spec.description ?? "",
        parameters: { type: "object", properties: {}, ...(spec.parameters ?? {}) },
        strict: false,
      },
      execute: async (args) => callTool(spec.name, args),
    });
  }
  return { functions };
}

// The request tools ResponsesToolRunner takes beside its registered functions (prepareTools): the
// server tools whose output items it can replay, and the computer tool of a registered ComputerToolset.
const RUNNER_SERVER_TOOLS = new Set([
  "web_search",
  "web_search_2025_08_26",
  "web_search_preview",
  "web_search_preview_2025_03_11",
  "file_search",
  "code_interpreter",
  "image_generation",
  "mcp",
]);
const COMPUTER_TOOLS = new Set(["computer", "computer_use_preview"]);

function serverTools(c) {
  const declared = new Set(c.tools.map((t) => t.name));
  const recorded = [...(c.server_tools ?? []), ...(c.recorded_tools ?? [])];
  const tools = [];
  const seen = new Set();
  for (const entry of recorded) {
    if (!entry || entry.type === "function" || entry.type === "custom" || declared.has(entry.name)) continue;
    const key = JSON.stringify(entry);
    if (seen.has(key)) continue;
    seen.add(key);
    tools.push(entry);
  }
  return tools;
}

function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text ?? {};
  }
}

// A ComputerDriver whose every action is a computer_call the replay answers with a screenshot: the
// toolset runs the call's actions, then captures the screen for the call's output, which is the
// screenshot the last action was answered with (or the replay's answer to a screenshot action).
function replayComputer(callTool) {
  let pending;
  const act = async (action) => {
    pending = parsed(await callTool("computer_call", action, null));
  };
  const screenshot = async () => {
    if (pending === undefined) await act({ type: "screenshot" });
    const shot = pending;
    pending = undefined;
    return { type: "computer_screenshot", image_url: String(shot?.image_url ?? shot ?? "") };
  };
  const driver = { screenshot };
  for (const name of ["click", "double_click", "drag", "keypress", "move", "scroll", "type", "wait"]) driver[name] = act;
  return driver;
}

function outputText(response) {
  return (response?.output ?? [])
    .filter((item) => item.type === "message")
    .flatMap((item) => item.content ?? [])
    .filter((part) => part.type === "output_text")
    .map((part) => part.text)
    .join("");
}

async function responses(c, callTool) {
  const restored = historyOf(c, RESPONSES_APIS, "ResponsesToolRunner's input items (ResponseInputItem)");
  if (restored.skip) return { skipped: restored.skip };
  if (c.interrupted?.length) {
    return {
      skipped:
        "ResponsesToolRunner stops the run when a function's execute throws (ResponsesToolRunnerError) and " +
        "saves no final checkpoint: a run cut off before its tool answered leaves no history to continue",
    };
  }
  const registered = responsesFunctions(c, callTool);
  if (registered.skip) return { skipped: registered.skip };
  const tools = serverTools(c);
  const refused = [...new Set(tools.map((t) => t.type).filter((type) => !RUNNER_SERVER_TOOLS.has(type) && !COMPUTER_TOOLS.has(type)))];
  if (refused.length) {
    return {
      skipped:
        `ResponsesToolRunner takes registered functions, a ComputerToolset and the server tools ` +
        `${[...RUNNER_SERVER_TOOLS].join(", ")} only (prepareTools refuses any other): it cannot declare ` +
        `the recorded ${refused.map((type) => `'${type}'`).join(", ")} tool`,
    };
  }
  const computer = tools.some((t) => COMPUTER_TOOLS.has(t.type)) ? new ComputerToolset(replayComputer(callTool)) : undefined;
  const runner = new ResponsesToolRunner({ functions: registered.functions, ...(computer ? { computer } : {}) });
  const openai = client(c);
  const body = recordedBody(c);
  // A hosted MCP server's call that needs approval: the replay says whether to approve ("true").
  const approveMcp = async (request) =>
    String(await callTool(request.name, parsed(request.arguments), request.id)).trim() === "true";
  let input = restored.messages;
  let output = "";
  const runs = runsOf(c);
  for (const [index, prompt] of runs.entries()) {
    if (prompt !== null) input = [...input, { role: "user", content: prompt }];
    let checkpoint;
    const ledger = { runId: `${c.id}#${index}`, save: (saved) => void (checkpoint = saved) };
    const final = await runner.run(
      openai,
      { ...body, model: c.model, input, ...(tools.length ? { tools } : {}) },
      { maxSteps: MAX_TURNS, stream: Boolean(c.stream), approveMcp, ...(runs.length > 1 ? { ledger } : {}) },
    );
    output = outputText(final);
    if (runs.length > 1) input = [...checkpoint.history, ...checkpoint.final_response.output];
  }
  return { output };
}

async function run(c, { callTool }) {
  if (CHAT_APIS.includes(c.api)) return chat(c, callTool);
  if (RESPONSES_APIS.includes(c.api)) return responses(c, callTool);
  return { skipped: UNSUPPORTED[c.api] ?? OPENAI_ONLY };
}

function implementation() {
  const libraries = installedVersions(import.meta.url, PACKAGES);
  return {
    name: "openai-sdk-js",
    version: libraries.openai,
    libraries,
    apis: [...CHAT_APIS, ...RESPONSES_APIS],
    unsupported: UNSUPPORTED,
    homepage: "https://github.com/openai/openai-node",
    continues: ["history", "sessions"],
    notes:
      "client.chat.completions.runTools (function tools with parse and function) on Chat Completions; " +
      "ResponsesToolRunner with registered functions on the Responses API; streams when the case streams",
  };
}

await serve({ root: import.meta.url, implementation, run });
