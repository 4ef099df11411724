// The tool loop: LangChain's v1 agent, `createAgent({ model, tools })`, run with `invoke`, or with
// `stream(..., { streamMode: "messages" })` when the case streams (which makes the chat model stream
// each turn). The agent's ToolNode runs every tool call and answers it with a ToolMessage under the
// call's id; the harness does nothing to the messages in between.
//
// Two things the agent leaves to the application, which then runs the agent again on the whole
// history: an MCP server's approval request (OpenAI Responses `mcp_approval_request`), answered, as
// LangChain.js documents for `tools.mcp` with `requireApproval`, by an `mcp_approval_response` content
// block in a human message; and Azure AI Foundry's `oauth_consent_request`, after which (the user
// having signed in at the link) the application sends the same history again.
import { randomUUID } from "node:crypto";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware } from "langchain";
import { callTool, runsOf } from "@toolcall-conformance/harness-kit";
import { buildTools } from "./tools.mjs";
import { APIS, buildModel, toolChoice } from "./providers.mjs";

// The agent stops after this many graph steps (about two per model turn).
const RECURSION_LIMIT = 40;
// Approvals and consents the application answers, each followed by another run of the agent.
const MAX_APPLICATION_ROUNDS = 4;

// Call options the recording needs that the model's constructor has no field for, and the recorded
// tool choice, handed to the model on each call the way LangChain v1 middleware does.
function settingsMiddleware(callOptions, choice) {
  if (!Object.keys(callOptions).length && choice === undefined) return [];
  return [
    createMiddleware({
      name: "RecordedSettings",
      wrapModelCall: async (request, handler) =>
        handler({
          ...request,
          ...(choice !== undefined ? { toolChoice: choice } : {}),
          modelSettings: { ...(request.modelSettings ?? {}), ...callOptions },
        }),
    }),
  ];
}

async function runOnce(agent, messages, stream, thread) {
  const input = { messages };
  const config = { recursionLimit: RECURSION_LIMIT, ...(thread ? { configurable: { thread_id: thread } } : {}) };
  if (!stream) return (await agent.invoke(input, config)).messages;
  let state;
  for await (const [mode, chunk] of await agent.stream(input, { ...config, streamMode: ["messages", "values"] })) {
    if (mode === "values") state = chunk;
  }
  return state?.messages ?? messages;
}

// Output items of a turn that LangChain.js keeps beside the message (Responses items it has no
// message field for), each once.
function outputItems(message, type, handled) {
  const items = [
    ...(message?.additional_kwargs?.tool_outputs ?? []),
    ...(Array.isArray(message?.response_metadata?.output) ? message.response_metadata.output : []),
    ...(Array.isArray(message?.content) ? message.content : []),
  ];
  const seen = new Set();
  return items.filter((item) => {
    if (item?.type !== type || !item.id || handled.has(item.id) || seen.has(item.id)) return false;
    seen.add(item.id);
    return true;
  });
}

// The recorded tools as this chat model would declare them; a declaration the integration refuses
// (a server tool type it does not know) means the case cannot be expressed with it.
function refusedDeclaration(model, tools) {
  try {
    model.bindTools(tools);
    return undefined;
  } catch (error) {
    return `${model.constructor.name}.bindTools refuses the recorded tools: ${String(error?.message ?? error).replace(/\s+/g, " ")}`;
  }
}

function lastAssistant(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.getType?.() === "ai") return messages[i];
  }
  return undefined;
}

// A restored history: the saved conversation as LangChain.js keeps one, its message classes (an
// AIMessage with `tool_calls`, a ToolMessage per result under the call's id), provider-neutral, so
// that one begun on another provider continues here on this chat model.
// A call saved without an id (Gemini before ids) is stored under the id LangChain.js's Google
// integrations mint as they read it (a UUID), and its result, in the same order, under the same id.
function restoredMessages(c) {
  const messages = [];
  let minted = [];
  for (const message of c.history ?? []) {
    const parts = message.parts ?? [];
    const text = parts.filter((p) => p.type === "text").map((p) => p.text).join("");
    if (message.role === "user") messages.push(new HumanMessage(text));
    else if (message.role === "system") messages.push(new SystemMessage(text));
    else if (message.role === "assistant") {
      const calls = parts.filter((p) => p.type === "tool_call" && !p.provider_executed);
      minted = calls.map((p) => p.call_id || randomUUID());
      messages.push(
        new AIMessage({
          content: text,
          tool_calls: calls.map((p, i) => ({ id: minted[i], name: p.name, args: p.arguments ?? {}, type: "tool_call" })),
        }),
      );
    } else if (message.role === "tool") {
      parts.forEach((p, i) =>
        messages.push(new ToolMessage({ content: String(p.output ?? ""), tool_call_id: p.call_id || minted[i] || randomUUID(), name: p.name ?? undefined })),
      );
    }
  }
  return messages;
}

// Each run of the session goes on with the same message list: the run's HumanMessage appended, the
// agent invoked on the whole list, as LangChain's short-term memory keeps a thread.
export async function runAgent(c, variant = {}) {
  const { model, callOptions } = buildModel(c, variant);
  const tools = buildTools(c);
  const refused = refusedDeclaration(model, tools);
  if (refused) return { skipped: refused };
  const middleware = settingsMiddleware(callOptions, toolChoice(c));
  if (c.interrupted?.length) return checkpointedRuns(c, createAgent({ model, tools, middleware, checkpointer: new MemorySaver() }));
  const agent = createAgent({ model, tools, middleware });
  let messages;
  if (c.legs?.length) {
    const handed = await firstLegs(c, variant);
    if (handed.skipped) return handed;
    messages = handed.messages;
  } else {
    messages = restoredMessages(c);
  }
  let output = "";
  for (const prompt of runsOf(c)) {
    if (prompt !== null) messages.push(new HumanMessage(prompt));
    ({ messages, output } = await runOnceWithApprovals(agent, messages, c));
  }
  return { output };
}

// A session whose run is cut off in its tool: the agent keeps the conversation in a thread of its
// checkpointer (LangGraph's MemorySaver), as LangChain's short-term memory guide configures it, and each
// run is invoked on that thread with the run's message only. The cut-off tool's `interrupt()` pauses the
// run; the next run is a new message on the same thread, not a resume.
async function checkpointedRuns(c, agent) {
  const thread = randomUUID();
  let first = restoredMessages(c);
  let output = "";
  for (const prompt of runsOf(c)) {
    const input = [...first, ...(prompt !== null ? [new HumanMessage(prompt)] : [])];
    first = [];
    const messages = await runOnce(agent, input, c.stream, thread);
    output = lastAssistant(messages)?.text ?? "";
  }
  return { output };
}

// A hand-off across providers: the conversation begins on each leg's chat model, its calls run by the
// tools themselves (a tool invoked with a ToolCall answers a ToolMessage under the call's id), for the
// leg's steps; the messages then go on to the case's chat model, as a LangChain application switches
// models over one message list.
async function firstLegs(c, variant) {
  const messages = [new HumanMessage(c.prompt)];
  for (const leg of c.legs) {
    if (!APIS.includes(leg.api)) return { skipped: `the conversation begins on ${leg.api}, which this column does not serve` };
    const legCase = { ...c, ...leg, server_tools: [] };
    const { model } = buildModel(legCase, variant);
    const tools = buildTools(legCase);
    const bound = model.bindTools(tools);
    for (let step = 0; step < leg.steps; step++) {
      const reply = await bound.invoke(messages);
      messages.push(reply);
      for (const call of reply.tool_calls ?? []) {
        const run = tools.find((t) => t.name === call.name);
        if (!run) throw new Error(`the first leg called ${call.name}, which the case does not declare`);
        messages.push(await run.invoke({ ...call, type: "tool_call" }));
      }
    }
  }
  return { messages };
}

async function runOnceWithApprovals(agent, start, c) {
  let messages = start;
  const handled = new Set();
  for (let round = 0; round <= MAX_APPLICATION_ROUNDS; round++) {
    messages = await runOnce(agent, messages, c.stream);
    const last = lastAssistant(messages);
    const approvals = outputItems(last, "mcp_approval_request", handled);
    const consents = outputItems(last, "oauth_consent_request", handled);
    if (!approvals.length && !consents.length) return { messages, output: last?.text ?? "" };
    for (const consent of consents) handled.add(consent.id);
    if (!approvals.length) continue;
    const blocks = [];
    for (const request of approvals) {
      handled.add(request.id);
      const decision = await callTool(c.tools_url, request.name, request.arguments ?? {}, request.id);
      blocks.push({ type: "mcp_approval_response", approve: String(decision).trim() === "true", approval_request_id: request.id });
    }
    messages = [...messages, new HumanMessage({ content: blocks })];
  }
  return { messages, output: lastAssistant(messages)?.text ?? "" };
}
