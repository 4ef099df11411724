// The tool loop: LangChain's v1 agent, `createAgent({ model, tools })`, run with `invoke`, or with
// `stream(..., { streamMode: "messages" })` when the case streams (which makes the chat model stream
// each turn). The agent's ToolNode runs every tool call and answers it with a ToolMessage under the
// call's id; the harness does nothing to the messages in between.
//
// One thing the agent leaves to the application: an MCP server's approval request (OpenAI Responses
// `mcp_approval_request`). As LangChain.js documents for `tools.mcp` with `requireApproval`, the
// application answers it with an `mcp_approval_response` content block in a human message and runs
// the model again: here, the agent again, on the whole history.
import { HumanMessage } from "@langchain/core/messages";
import { createAgent, createMiddleware } from "langchain";
import { askReplay, buildTools } from "./tools.mjs";
import { buildModel, toolChoice } from "./providers.mjs";

// The agent stops after this many graph steps (about two per model turn).
const RECURSION_LIMIT = 40;
// MCP approvals the application answers, each followed by another run of the agent.
const MAX_APPROVAL_ROUNDS = 4;

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

async function runOnce(agent, messages, stream) {
  const input = { messages };
  const config = { recursionLimit: RECURSION_LIMIT };
  if (!stream) return (await agent.invoke(input, config)).messages;
  let state;
  for await (const [mode, chunk] of await agent.stream(input, { ...config, streamMode: ["messages", "values"] })) {
    if (mode === "values") state = chunk;
  }
  return state?.messages ?? messages;
}

function pendingApprovals(message, answered) {
  const items = [
    ...(message?.additional_kwargs?.tool_outputs ?? []),
    ...(Array.isArray(message?.response_metadata?.output) ? message.response_metadata.output : []),
    ...(Array.isArray(message?.content) ? message.content : []),
  ];
  const seen = new Set();
  return items.filter((item) => {
    if (item?.type !== "mcp_approval_request" || !item.id || answered.has(item.id) || seen.has(item.id)) return false;
    seen.add(item.id);
    return true;
  });
}

function lastAssistant(messages) {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.getType?.() === "ai") return messages[i];
  }
  return undefined;
}

export async function runAgent(c) {
  const { model, callOptions } = buildModel(c);
  const agent = createAgent({
    model,
    tools: buildTools(c),
    middleware: settingsMiddleware(callOptions, toolChoice(c)),
  });
  let messages = [new HumanMessage(c.prompt)];
  const answered = new Set();
  for (let round = 0; round <= MAX_APPROVAL_ROUNDS; round++) {
    messages = await runOnce(agent, messages, c.stream);
    const last = lastAssistant(messages);
    const pending = pendingApprovals(last, answered);
    if (!pending.length) return { output: last?.text ?? "" };
    const blocks = [];
    for (const request of pending) {
      answered.add(request.id);
      const decision = await askReplay(c.tools_url, request.name, request.arguments ?? {}, request.id);
      blocks.push({ type: "mcp_approval_response", approve: String(decision).trim() === "true", approval_request_id: request.id });
    }
    messages = [...messages, new HumanMessage({ content: blocks })];
  }
  return { output: lastAssistant(messages)?.text ?? "" };
}
