// The Anthropic TypeScript SDK's tool runner (`client.beta.messages.toolRunner`) under the
// toolcall-conformance harness protocol (docs/harness.md): for each case the runner loops over the
// case's tools, declared with the SDK's `betaTool` function, against the replay server.
//
//   npm ci --prefix harnesses/anthropic-sdk
//   conformance run --harness 'node harnesses/anthropic-sdk/run.mjs'
//   conformance run --harness 'node harnesses/anthropic-sdk/run.mjs --full-history'
//
// The protocol itself is the shared harness kit's; this file holds the SDK's tool loop only.
import { installedVersions, RunInterrupted, runsOf, serve } from "@toolcall-conformance/harness-kit";

const { default: Anthropic } = await import("@anthropic-ai/sdk");
const { betaTool } = await import("@anthropic-ai/sdk/helpers/beta/json-schema");

// The longest recorded conversation has fewer turns; a loop that runs on fails the case.
const MAX_ITERATIONS = 12;

const PACKAGES = ["@anthropic-ai/sdk"];
const FULL_HISTORY = process.argv.includes("--full-history");

const ONLY_ANTHROPIC = "the Anthropic SDK speaks the Anthropic Messages API only";
const UNSUPPORTED = Object.fromEntries(
  [
    "openai-chat",
    "openai-responses",
    "azure-foundry",
    "openresponses",
    "gemini",
    "bedrock-converse",
    "mistral-chat",
    "kimi-chat",
    "ollama-chat",
    "cohere-v2",
  ].map((api) => [api, ONLY_ANTHROPIC]),
);

// Body fields that are the conversation itself (the runner sends its own) or the runner's.
const CONVERSATION = new Set(["model", "messages", "tools", "stream"]);

function declareTools(c, callTool, cutOff) {
  const tools = [];
  for (const spec of c.tools) {
    if (spec.type === "custom") {
      return { skip: `the Messages API has no custom (free-form) tools; the SDK cannot declare '${spec.name}'` };
    }
    tools.push(
      betaTool({
        name: spec.name,
        description: spec.description ?? "",
        inputSchema: { type: "object", properties: {}, ...(spec.parameters ?? {}) },
        run: async (input, context) => {
          try {
            return await callTool(spec.name, input, context?.toolUse?.id);
          } catch (error) {
            // The runner would answer the throw with an is_error result; the application that cut the run
            // off stops iterating instead (`stepped`), and that result is never sent.
            if (error instanceof RunInterrupted) cutOff.add(context?.toolUse?.id);
            throw error;
          }
        },
        // Who besides the model may call it (code execution): betaTool sends extra fields as given.
        ...(spec.allowed_callers ? { allowed_callers: spec.allowed_callers } : {}),
      }),
    );
  }
  // Server tools (web search, code execution, tool search, MCP toolsets) go to the API as recorded:
  // the runner passes every definition that is not a runnable tool through unchanged.
  const declared = new Set(c.tools.map((t) => t.name));
  for (const entry of c.recorded_tools ?? []) {
    if (!entry || entry.input_schema || declared.has(entry.name)) continue;
    tools.push(entry);
  }
  return { tools };
}

function text(message) {
  return (message?.content ?? []).filter((block) => block.type === "text").map((block) => block.text).join("");
}

// Each run of the session goes on in the same conversation: the SDK's message thread
// (`client.beta.messages.thread`) begun with the restored messages, each run's user message appended
// and a tool runner run over the thread, whose replies and tool results become part of its history;
// with `--full-history`, the runner's own `params.messages` and its final reply, sent whole each run.
async function continued(c, client, declared, body, headers, cutOff) {
  const settings = { max_iterations: MAX_ITERATIONS, stream: c.stream };
  let messages = structuredClone(c.history_wire ?? []);
  if (!FULL_HISTORY) {
    const thread = client.beta.messages.thread({ max_tokens: 1024, ...body, model: c.model, messages, tools: declared.tools }, { headers });
    let final;
    for (const prompt of runsOf(c)) {
      if (prompt !== null) thread.append({ role: "user", content: prompt });
      final = await finished(thread.toolRunner(settings), c, cutOff);
    }
    return { output: text(final) };
  }
  let final;
  for (const prompt of runsOf(c)) {
    if (prompt !== null) messages = [...messages, { role: "user", content: prompt }];
    const runner = client.beta.messages.toolRunner(
      { max_tokens: 1024, ...body, model: c.model, messages, tools: declared.tools, ...settings, thread: false },
      { headers },
    );
    final = await finished(runner, c, cutOff);
    // Once the loop has ended (or was left), the runner's messages hold the turns it sent; its last reply
    // is the application's to keep.
    messages = [...runner.params.messages];
    if (messages.at(-1)?.role !== "assistant") messages.push({ role: "assistant", content: final.content });
  }
  return { output: text(final) };
}

// One run of the tool runner. Where the session cuts a run off, it is iterated the way an application
// that can stop a run does: each reply's tools are run in the loop body with
// `runner.generateToolResponse()` (the runner reuses that response once the body ends), and a run whose
// tool was cut off leaves the `for await`, which closes the runner before it appends that response. The
// reply with the unanswered tool_use stays in the conversation for the next run.
async function finished(runner, c, cutOff) {
  if (!c.interrupted?.length) return runner.runUntilDone();
  let last;
  for await (const turn of runner) {
    last = typeof turn?.finalMessage === "function" ? await turn.finalMessage() : turn;
    cutOff.clear();
    await runner.generateToolResponse();
    if (cutOff.size) return last;
  }
  return runner.done();
}

async function run(c, { callTool }) {
  if (c.api !== "anthropic-messages") return { skipped: UNSUPPORTED[c.api] ?? ONLY_ANTHROPIC };
  if (c.history?.length && c.history_api !== "anthropic-messages") {
    return {
      skipped:
        `the Anthropic SDK keeps a conversation as Messages API messages only: it has no form for a conversation ` +
        `begun on ${c.history_api}, and no way to continue one on another provider`,
    };
  }
  const cutOff = new Set();
  const declared = declareTools(c, callTool, cutOff);
  if (declared.skip) return { skipped: declared.skip };
  const client = new Anthropic({ apiKey: c.api_key, baseURL: c.base_url, maxRetries: 0 });
  const body = Object.fromEntries(Object.entries(c.settings?.body ?? {}).filter(([key]) => !CONVERSATION.has(key)));
  const headers = Object.fromEntries(Object.entries(c.settings?.headers ?? {}).filter(([name]) => name.toLowerCase() === "anthropic-beta"));
  if (c.history?.length || runsOf(c).length > 1) return continued(c, client, declared, body, headers, cutOff);
  const runner = client.beta.messages.toolRunner(
    {
      max_tokens: 1024,
      ...body,
      model: c.model,
      messages: [{ role: "user", content: c.prompt }],
      tools: declared.tools,
      max_iterations: MAX_ITERATIONS,
      stream: c.stream,
      // `--full-history` sends the whole history every turn (`thread: false`); by default the runner
      // keeps the conversation in a thread the server holds and sends only the new messages, which
      // the replay serves as the provider would.
      ...(FULL_HISTORY ? { thread: false } : {}),
    },
    { headers },
  );
  const final = await runner.runUntilDone();
  return { output: text(final) };
}

function implementation() {
  const libraries = installedVersions(import.meta.url, PACKAGES);
  return {
    name: "anthropic-sdk-js",
    version: libraries["@anthropic-ai/sdk"],
    libraries,
    apis: ["anthropic-messages"],
    unsupported: UNSUPPORTED,
    homepage: "https://github.com/anthropics/anthropic-sdk-typescript",
    continues: ["history", "sessions"],
    notes:
      "client.beta.messages.toolRunner with betaTool tools; streams each turn when the case streams; " +
      (FULL_HISTORY ? "the whole history every turn (thread: false)" : "the runner's default server-held thread"),
  };
}

await serve({ root: import.meta.url, implementation, run });
