// A minimal harness in JavaScript: an OpenAI Chat Completions tool loop written with fetch, nothing
// else. It shows the harness protocol end to end (docs/harness.md) and is what the suite's own
// tests run to hold the protocol: it needs only Node.js 18 or later.
//
//   conformance run --harness 'node harnesses/minimal-js/harness.mjs'
//
// Commands arrive as JSON lines on stdin; answers go to stdout, one JSON line each. Anything else
// (logs) goes to stderr.
import { createInterface } from "node:readline";

const PROTOCOL = 1;
const MAX_TURNS = 8;

function answer(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${body.__key ?? ""}` },
    body: JSON.stringify(body, (k, v) => (k === "__key" ? undefined : v)),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
  return { text, type: response.headers.get("content-type") ?? "" };
}

// A streamed completion joined into one message: calls by index, a new call where an index comes
// back with another id (some servers put every call at index 0).
function joinStream(text) {
  const message = { role: "assistant", content: null, tool_calls: [] };
  const open = new Map();
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (!data || data === "[DONE]") continue;
    const chunk = JSON.parse(data);
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta ?? {};
      if (typeof delta.content === "string") message.content = (message.content ?? "") + delta.content;
      for (const entry of delta.tool_calls ?? []) {
        let call = open.get(entry.index ?? 0);
        if (!call || (entry.id && call.id && entry.id !== call.id)) {
          call = { id: "", type: "function", function: { name: "", arguments: "" } };
          open.set(entry.index ?? 0, call);
          message.tool_calls.push(call);
        }
        if (entry.id && !call.id) call.id = entry.id;
        if (entry.function?.name && !call.function.name) call.function.name = entry.function.name;
        if (typeof entry.function?.arguments === "string") call.function.arguments += entry.function.arguments;
      }
    }
  }
  if (message.tool_calls.length === 0) delete message.tool_calls;
  return message;
}

async function callTool(toolsUrl, name, args, callId) {
  const { text } = await post(toolsUrl, { name, arguments: args, call_id: callId });
  return JSON.parse(text).output;
}

async function run(c) {
  const tools = c.tools.map((t) =>
    t.type === "custom"
      ? { type: "custom", custom: { name: t.name, description: t.description ?? "" } }
      : { type: "function", function: { name: t.name, description: t.description ?? "", parameters: t.parameters } },
  );
  const messages = [{ role: "user", content: c.prompt }];
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const body = { model: c.model, messages, tools, __key: c.api_key };
    if (c.stream) body.stream = true;
    const { text } = await post(`${c.base_url}/chat/completions`, body);
    const message = c.stream ? joinStream(text) : JSON.parse(text).choices[0].message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content ?? "";
    // A call served without an id (Gemini's compatible endpoint sends "") gets one of ours, on the
    // call and on its result, so the two still pair.
    message.tool_calls.forEach((call, k) => {
      if (!call.id) call.id = `call_${turn}_${k}`;
    });
    for (const call of message.tool_calls) {
      const output =
        call.type === "custom"
          ? await callTool(c.tools_url, call.custom.name, { input: call.custom.input }, call.id)
          : await callTool(c.tools_url, call.function.name, JSON.parse(call.function.arguments || "{}"), call.id);
      messages.push({ role: "tool", tool_call_id: call.id, content: output });
    }
  }
  return "";
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const command = JSON.parse(line);
  if (command.cmd === "start") {
    answer({
      version: PROTOCOL,
      implementation: {
        name: "minimal-js",
        language: "javascript",
        version: "1.0.0",
        libraries: { node: process.version },
        apis: ["openai-chat"],
        unsupported: { "anthropic-messages": "the minimal harness speaks Chat Completions only" },
      },
    });
  } else if (command.cmd === "run") {
    try {
      const output = await run(command.case);
      answer({ seq: command.seq, ok: true, output: String(output) });
    } catch (error) {
      answer({ seq: command.seq, errored: { message: String(error?.message ?? error), detail: String(error?.stack ?? "") } });
    }
  } else if (command.cmd === "stop") {
    break;
  }
}
