// A harness as an adapter author writes it in their own repository, against the published Node kit
// (docs/harness.md, "A harness in your own repository"). Its "library" is the few lines of an OpenAI
// Chat Completions tool loop below; yours is the library you ship. The suite's tests build it outside
// this repository from the packed kit, so it holds that the kit works as a dependency.
import { installedVersions, runsOf, serve } from "@toolcall-conformance/harness-kit"; // before any library

async function complete(c, messages, tools) {
  const response = await fetch(`${c.base_url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${c.api_key}` },
    body: JSON.stringify({ model: c.model, messages, tools }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text).choices[0].message;
}

async function run(c, { callTool }) {
  if (c.stream) return { skipped: "this example asks for whole responses only" };
  if (c.tools.some((t) => t.type === "custom")) return { skipped: "this example declares function tools only" };
  const tools = c.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description ?? "", parameters: t.parameters } }));
  const messages = [];
  for (const prompt of runsOf(c)) {
    if (prompt !== null) messages.push({ role: "user", content: prompt });
    for (let turn = 0; turn < 8; turn++) {
      const message = await complete(c, messages, tools);
      messages.push(message);
      if (!message.tool_calls?.length) break;
      for (const call of message.tool_calls) {
        const output = await callTool(call.function.name, call.function.arguments, call.id);
        messages.push({ role: "tool", tool_call_id: call.id, content: output });
      }
    }
  }
  return { output: messages.at(-1)?.content ?? "" };
}

await serve({
  root: import.meta.url,
  implementation: () => ({
    name: "example-node",
    version: "0.0.0",
    libraries: installedVersions(import.meta.url, ["@toolcall-conformance/harness-kit"]),
    apis: ["openai-chat"],
  }),
  run,
});
