// The OpenAI Agents SDK for TypeScript (@openai/agents) under the toolcall-conformance harness
// protocol (docs/harness.md): for each case an Agent with the case's tools runs through the SDK's
// Runner, its model an OpenAIChatCompletionsModel (openai-chat) or an OpenAIResponsesModel
// (openai-responses) over an `openai` client pointed at the replay server.
//
//   npm ci --prefix harnesses/openai-agents
//   conformance run --harness 'node harnesses/openai-agents/run.mjs'
//
// The protocol itself is the shared harness kit's; this file holds the SDK's tool loop only.
import { randomUUID } from "node:crypto";

import { callTool as askReplay, installedVersions, RunInterrupted, runsOf, serve } from "@toolcall-conformance/harness-kit";

// The SDK exports traces to OpenAI by default; the suite's traffic stays on 127.0.0.1.
process.env.OPENAI_AGENTS_DISABLE_TRACING = "1";

const {
  Agent,
  Runner,
  applyPatchTool,
  computerTool,
  shellTool,
  OpenAIChatCompletionsModel,
  OpenAIResponsesModel,
  codeInterpreterTool,
  fileSearchTool,
  hostedMcpTool,
  imageGenerationTool,
  programmaticToolCallingTool,
  setTracingDisabled,
  tool,
  toolSearchTool,
  webSearchTool,
} = await import("@openai/agents");
const { default: OpenAI } = await import("openai");

setTracingDisabled(true);

// The longest recorded conversation has fewer turns; a loop that runs on fails the case.
const MAX_TURNS = 12;
const MAX_APPROVAL_ROUNDS = 4;

const PACKAGES = ["@openai/agents", "@openai/agents-core", "@openai/agents-openai", "openai", "zod"];

const MODELS = {
  "openai-chat": (client, model) => new OpenAIChatCompletionsModel(client, model),
  "openai-responses": (client, model) => new OpenAIResponsesModel(client, model),
};

// The SDK's models are OpenAIChatCompletionsModel and OpenAIResponsesModel (@openai/agents-openai).
const OPENAI_ONLY = "the Agents SDK's models (OpenAIChatCompletionsModel, OpenAIResponsesModel) speak OpenAI's Chat Completions and Responses APIs only";
const UNSUPPORTED = {
  "anthropic-messages": OPENAI_ONLY,
  gemini: OPENAI_ONLY,
  "bedrock-converse": OPENAI_ONLY,
  "cohere-v2": OPENAI_ONLY,
  "ollama-chat": OPENAI_ONLY,
  "azure-foundry": "this column runs the SDK against OpenAI's own APIs (openai-chat, openai-responses)",
  openresponses: "this column runs the SDK against OpenAI's own APIs (openai-chat, openai-responses)",
  "mistral-chat": "this column runs the SDK against OpenAI's own APIs (openai-chat, openai-responses)",
  "kimi-chat": "this column runs the SDK against OpenAI's own APIs (openai-chat, openai-responses)",
};

// Recorded provider tools the SDK declares with its own hosted-tool factories.
const HOSTED = {
  web_search: (entry) => webSearchTool(pick(entry, { search_context_size: "searchContextSize", user_location: "userLocation" })),
  web_search_preview: (entry) => webSearchTool(pick(entry, { search_context_size: "searchContextSize", user_location: "userLocation" })),
  code_interpreter: (entry) => codeInterpreterTool(pick(entry, { container: "container" })),
  file_search: (entry) => fileSearchTool(entry.vector_store_ids ?? [], pick(entry, { max_num_results: "maxNumResults" })),
  image_generation: () => imageGenerationTool(),
  programmatic_tool_calling: () => programmaticToolCallingTool(),
  mcp: (entry) =>
    hostedMcpTool({
      serverLabel: entry.server_label,
      ...(entry.server_url ? { serverUrl: entry.server_url } : {}),
      ...(entry.connector_id ? { connectorId: entry.connector_id } : {}),
      ...(entry.allowed_tools ? { allowedTools: entry.allowed_tools } : {}),
      requireApproval: entry.require_approval ?? "never",
    }),
};

// Responses tools the application runs, with the SDK's own interfaces (a Shell, an Editor); each asks
// the replay for the output of the call item it answers.
const CLIENT_RUN = {
  shell: (callTool) =>
    shellTool({
      shell: {
        run: async (action) => ({ output: shellOutput(await callTool("shell_call", { commands: action.commands }, null)) }),
      },
    }),
  computer_use_preview: (callTool, entry) => computerTool({ computer: replayComputer(callTool, entry) }),
  // A client-run tool search: the replay answers with the definitions it loads; each is the agent's tool
  // of that name where it has one, else a function tool declared from the definition.
  tool_search: (callTool, entry) =>
    entry.execution === "client"
      ? toolSearchTool({
          execution: "client",
          execute: async ({ toolCall, availableTools }) => {
            const found = JSON.parse(await callTool("tool_search_call", toolCall.arguments ?? {}, toolCall.callId));
            const definitions = Array.isArray(found) ? found : (found?.tools ?? []);
            return definitions.map(
              (definition) =>
                availableTools.find((t) => t.name === definition.name) ??
                functionTool(callTool, { name: definition.name, description: definition.description, parameters: definition.parameters }, false),
            );
          },
        })
      : toolSearchTool(),
  apply_patch: (callTool) =>
    applyPatchTool({
      editor: {
        createFile: (operation) => patched(callTool, operation),
        updateFile: (operation) => patched(callTool, operation),
        deleteFile: (operation) => patched(callTool, operation),
      },
    }),
};

// A Computer whose every action is a computer_call the replay answers with a screenshot. The SDK runs
// the action, then takes a screenshot for the call's output: the screenshot is the one the action was
// answered with, or, for a screenshot action, the replay's answer to it.
function replayComputer(callTool, entry) {
  let pending;
  const act = async (action) => {
    const value = JSON.parse(await callTool("computer_call", action, null));
    pending = String(value.image_url ?? "").replace(/^data:image\/[a-z]+;base64,/, "");
  };
  const screenshot = async () => {
    if (pending === undefined) await act({ type: "screenshot" });
    const image = pending;
    pending = undefined;
    return image;
  };
  return {
    environment: entry.environment ?? "browser",
    dimensions: [entry.display_width ?? 1024, entry.display_height ?? 768],
    screenshot,
    click: (x, y, button) => act({ type: "click", button, x, y }),
    doubleClick: (x, y) => act({ type: "double_click", x, y }),
    scroll: (x, y, scrollX, scrollY) => act({ type: "scroll", x, y, scroll_x: scrollX, scroll_y: scrollY }),
    type: (text) => act({ type: "type", text }),
    wait: () => act({ type: "wait" }),
    move: (x, y) => act({ type: "move", x, y }),
    keypress: (keys) => act({ type: "keypress", keys }),
    drag: (path) => act({ type: "drag", path: path.map(([x, y]) => ({ x, y })) }),
  };
}

async function patched(callTool, operation) {
  return { status: "completed", output: await callTool("apply_patch_call", operation, null) };
}

// The replay answers a shell call with the recorded output items (`[{stdout, stderr, outcome}]`).
function shellOutput(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    value = [{ stdout: text }];
  }
  return (Array.isArray(value) ? value : [value]).map((run) => ({
    stdout: String(run?.stdout ?? ""),
    stderr: String(run?.stderr ?? ""),
    outcome:
      run?.outcome?.type === "timeout"
        ? { type: "timeout" }
        : { type: "exit", exitCode: Number(run?.outcome?.exit_code ?? run?.outcome?.exitCode ?? run?.exit_code ?? 0) },
  }));
}

const NOT_DECLARED = {
  local_shell: "the Agents SDK's shellTool() declares the `shell` tool; its Tool has no `local_shell` tool (@openai/agents-core tool.d.ts)",
};

function pick(entry, names) {
  const picked = {};
  for (const [wire, option] of Object.entries(names)) if (entry[wire] !== undefined) picked[option] = entry[wire];
  return picked;
}

function functionTool(callTool, spec, programmatic, raises = false) {
  return tool({
    name: spec.name,
    description: spec.description ?? "",
    parameters: { type: "object", properties: {}, ...(spec.parameters ?? {}) },
    strict: false,
    ...(programmatic ? { allowedCallers: ["direct", "programmatic"] } : {}),
    // Where a session cuts a run off in its tool, the tool's throw ends the run (`errorFunction: null`)
    // instead of going to the model as an error result.
    ...(raises ? { errorFunction: null } : {}),
    execute: async (input, _context, details) => callTool(spec.name, input, details?.toolCall?.callId),
  });
}

function declareTools(c, callTool) {
  const tools = [];
  // With programmatic tool calling the recorded functions are called both by the model and by its
  // program; the SDK declares that on each function tool (and refuses the hosted tool without it).
  const programmatic = (c.recorded_tools ?? []).some((t) => t?.type === "programmatic_tool_calling");
  for (const spec of c.tools) {
    if (spec.type === "custom") {
      return {
        skip:
          "the Agents SDK's Tool is a FunctionTool, ComputerTool, ShellTool, ApplyPatchTool or HostedTool " +
          `(@openai/agents-core tool.d.ts): it has no custom (free-form) tool to run; it cannot declare '${spec.name}'`,
      };
    }
    tools.push(functionTool(callTool, spec, programmatic, Boolean(c.interrupted?.length)));
  }
  const missing = [];
  for (const entry of c.recorded_tools ?? []) {
    const type = entry?.type;
    if (!type || type === "function" || type === "custom") continue;
    if (c.api === "openai-responses" && HOSTED[type]) tools.push(HOSTED[type](entry));
    else if (c.api === "openai-responses" && CLIENT_RUN[type]) tools.push(CLIENT_RUN[type](callTool, entry));
    else missing.push(type);
  }
  if (missing.length) return { skip: missing.map((type) => NOT_DECLARED[type] ?? `the harness declares no Agents SDK tool for ${type} on ${c.api}`).join("; ") };
  return { tools };
}

// The recording's request settings, where ModelSettings has them.
function modelSettings(c) {
  const body = c.settings?.body ?? {};
  const settings = {};
  const choice = body.tool_choice;
  if (typeof choice === "string") settings.toolChoice = choice;
  else if (choice?.name ?? choice?.function?.name) settings.toolChoice = choice.name ?? choice.function.name;
  if (typeof body.parallel_tool_calls === "boolean") settings.parallelToolCalls = body.parallel_tool_calls;
  if (typeof body.store === "boolean") settings.store = body.store;
  const maxTokens = body.max_output_tokens ?? body.max_completion_tokens ?? body.max_tokens;
  if (typeof maxTokens === "number") settings.maxTokens = maxTokens;
  if (body.reasoning && typeof body.reasoning === "object") settings.reasoning = body.reasoning;
  return settings;
}

async function runOnce(runner, agent, input, stream) {
  if (!stream) return runner.run(agent, input, { maxTurns: MAX_TURNS });
  const result = await runner.run(agent, input, { maxTurns: MAX_TURNS, stream: true });
  for await (const _event of result) {
    // The Runner reassembles the stream itself; the events are only drained.
  }
  await result.completed;
  if (result.error) throw result.error;
  return result;
}

function makeAgent(c, callTool, tools, extra = {}) {
  const client = new OpenAI({ apiKey: c.api_key, baseURL: c.base_url, maxRetries: 0 });
  return new Agent({ name: "conformance", model: MODELS[c.api](client, c.model), tools, modelSettings: modelSettings(c), ...extra });
}

// A tool that needs approval (a hosted MCP server's) interrupts the run; the application approves
// or rejects each call on the run's state and runs again, as the SDK's human-in-the-loop guide
// shows. The replay says whether to approve ("true").
async function runWithApprovals(runner, agent, input, c, callTool) {
  let result = await runOnce(runner, agent, input, c.stream);
  for (let round = 0; round < MAX_APPROVAL_ROUNDS && result.interruptions?.length; round++) {
    for (const interruption of result.interruptions) {
      const raw = interruption.rawItem ?? {};
      const name = raw.name ?? interruption.name ?? "";
      const verdict = await callTool(name, raw.arguments ?? raw.providerData?.arguments ?? {}, raw.callId ?? raw.id);
      if (String(verdict).trim() === "true") result.state.approve(interruption);
      else result.state.reject(interruption);
    }
    result = await runOnce(runner, agent, result.state, c.stream);
  }
  return result;
}

// A restored history: the saved conversation as the SDK keeps one, its input items (`result.history`:
// a `function_call` item and a `function_call_result` item under the call's id), which the SDK turns
// into either API's request, so that one begun on another provider continues here. A call saved
// without an id (Gemini before ids) is stored under a minted one, and its result, which comes in the
// same order, under the same id: the items need a callId.
function restoredItems(c) {
  const items = [];
  let minted = [];
  for (const message of c.history ?? []) {
    const parts = message.parts ?? [];
    const text = parts.filter((p) => p.type === "text").map((p) => p.text).join("");
    if (message.role === "user" || message.role === "system") {
      items.push({ role: message.role, content: text });
    } else if (message.role === "assistant") {
      if (text) items.push({ role: "assistant", status: "completed", content: [{ type: "output_text", text }] });
      const calls = parts.filter((p) => p.type === "tool_call" && !p.provider_executed);
      minted = calls.map((p) => p.call_id || `call_${randomUUID().replaceAll("-", "")}`);
      calls.forEach((p, i) =>
        items.push({ type: "function_call", callId: minted[i], name: p.name, arguments: JSON.stringify(p.arguments ?? {}), status: "completed" }),
      );
    } else if (message.role === "tool") {
      parts.forEach((p, i) =>
        items.push({
          type: "function_call_result",
          callId: p.call_id || minted[i] || `call_${randomUUID().replaceAll("-", "")}`,
          name: p.name ?? "",
          status: "completed",
          output: { type: "text", text: String(p.output ?? "") },
        }),
      );
    }
  }
  return items;
}

// A hand-off across providers: the conversation begins on an agent of each leg's model that stops
// after running its tools (`toolUseBehavior: "stop_on_first_tool"`), once per step of the leg; its
// `result.history` then goes on to the agent of the case's model, as the SDK's guides switch models.
async function firstLegs(c, runner) {
  let items = [{ role: "user", content: c.prompt }];
  for (const leg of c.legs) {
    if (!MODELS[leg.api]) {
      return { skipped: `the conversation begins on ${leg.api}: ${UNSUPPORTED[leg.api] ?? "the Agents SDK has no model for it"}` };
    }
    const legCase = { ...c, ...leg, server_tools: [] };
    const legTool = (name, args, callId) => askReplay(leg.tools_url, name, args, callId);
    const declared = declareTools(legCase, legTool);
    if (declared.skip) return { skipped: declared.skip };
    const agent = makeAgent(legCase, legTool, declared.tools, { toolUseBehavior: "stop_on_first_tool" });
    for (let step = 0; step < leg.steps; step++) items = (await runOnce(runner, agent, items, legCase.stream)).history;
  }
  return { items };
}

const finalOutput = (result) => (typeof result.finalOutput === "string" ? result.finalOutput : JSON.stringify(result.finalOutput ?? ""));

// Each run of the session goes on with the items of the last (`result.history`), the run's user
// message appended, as the SDK's guide on managing conversation state shows without a Session; a run
// cut off in its tool goes on from the history of the state its ToolCallError carries.
async function run(c, { callTool }) {
  if (!MODELS[c.api]) return { skipped: UNSUPPORTED[c.api] ?? `the harness serves no ${c.api}` };
  const declared = declareTools(c, callTool);
  if (declared.skip) return { skipped: declared.skip };
  const agent = makeAgent(c, callTool, declared.tools);
  const runner = new Runner({ tracingDisabled: true });
  if (!c.history?.length && !c.legs?.length && runsOf(c).length === 1) {
    return { output: finalOutput(await runWithApprovals(runner, agent, c.prompt, c, callTool)) };
  }
  let items;
  if (c.legs?.length) {
    const handed = await firstLegs(c, runner);
    if (handed.skipped) return handed;
    items = handed.items;
  } else {
    items = restoredItems(c);
  }
  let result;
  for (const prompt of runsOf(c)) {
    if (prompt !== null) items = [...items, { role: "user", content: prompt }];
    try {
      result = await runWithApprovals(runner, agent, items, c, callTool);
    } catch (error) {
      // A run cut off in its tool: the SDK's ToolCallError carries the run's state, whose history (the
      // model's call included, without its output) the next run goes on from.
      if (!(error?.error instanceof RunInterrupted) || !error.state) throw error;
      items = error.state.history;
      continue;
    }
    items = result.history;
  }
  return { output: finalOutput(result) };
}

function implementation() {
  const libraries = installedVersions(import.meta.url, PACKAGES);
  return {
    name: "openai-agents-js",
    version: libraries["@openai/agents"],
    libraries,
    apis: Object.keys(MODELS),
    unsupported: UNSUPPORTED,
    homepage: "https://openai.github.io/openai-agents-js/",
    continues: ["history", "sessions", "handoffs"],
    notes: "Runner.run over an Agent; openai-chat through OpenAIChatCompletionsModel, openai-responses through OpenAIResponsesModel",
  };
}

await serve({ root: import.meta.url, implementation, run });
