// The Google Gen AI SDK for TypeScript (`@google/genai`) with its automatic function calling under the
// toolcall-conformance harness protocol (docs/harness.md): a chat (`ai.chats.create`) whose tools are
// a CallableTool, so that the SDK runs the calls and sends their responses itself.
//
//   npm ci --prefix harnesses/google-genai
//   conformance run --harness 'node harnesses/google-genai/run.mjs'
//
// The protocol itself is the shared harness kit's; this file holds the SDK's tool loop only.
import { installedVersions, runsOf, serve } from "@toolcall-conformance/harness-kit";

const { GoogleGenAI } = await import("@google/genai");

// The longest recorded conversation has fewer turns; a loop that runs on fails the case.
const MAX_REMOTE_CALLS = 12;

const PACKAGES = ["@google/genai"];
// `--by-name` answers each call as the SDK's own McpCallableTool (mcpToTool) does: a functionResponse
// with the call's name and no id.
const BY_NAME = process.argv.includes("--by-name");

const ONLY_GEMINI = "the Google Gen AI SDK speaks the Gemini API only";
const UNSUPPORTED = Object.fromEntries(
  [
    "openai-chat",
    "openai-responses",
    "azure-foundry",
    "openresponses",
    "anthropic-messages",
    "bedrock-converse",
    "mistral-chat",
    "kimi-chat",
    "ollama-chat",
    "cohere-v2",
  ].map((api) => [api, ONLY_GEMINI]),
);

// The case's tools as one CallableTool, the interface the SDK's automatic function calling runs (its
// own mcpToTool returns one): `tool()` declares the functions, `callTool` answers each call the SDK
// hands it with a functionResponse under the call's name and id (with `--by-name`, the name only).
function callableTool(c, callTool) {
  const functionDeclarations = c.tools.map((spec) => ({
    name: spec.name,
    description: spec.description ?? "",
    parametersJsonSchema: { type: "object", properties: {}, ...(spec.parameters ?? {}) },
  }));
  return {
    tool: async () => ({ functionDeclarations }),
    callTool: async (functionCalls) => {
      const parts = [];
      for (const call of functionCalls) {
        const output = await callTool(call.name, call.args ?? {}, call.id);
        parts.push({ functionResponse: { ...(call.id && !BY_NAME ? { id: call.id } : {}), name: call.name, response: { output } } });
      }
      return parts;
    },
  };
}

// The recorded request's settings the SDK's GenerateContentConfig takes, and the provider's own tools
// (code execution, Google Search, URL context) as recorded, beside the callable tool.
function config(c, callable) {
  const body = c.settings?.body ?? {};
  const declared = new Set(c.tools.map((t) => t.name));
  const serverTools = [...(c.server_tools ?? []), ...(c.recorded_tools ?? [])].filter(
    (entry) => entry && !entry.functionDeclarations && !entry.function_declarations && !declared.has(entry.name) && !entry.type,
  );
  const unique = [...new Map(serverTools.map((entry) => [JSON.stringify(entry), entry])).values()];
  return {
    ...(body.generationConfig ?? {}),
    ...(body.systemInstruction ? { systemInstruction: body.systemInstruction } : {}),
    ...(body.toolConfig ? { toolConfig: body.toolConfig } : {}),
    ...(body.safetySettings ? { safetySettings: body.safetySettings } : {}),
    tools: [...(c.tools.length ? [callable] : []), ...unique],
    automaticFunctionCalling: { maximumRemoteCalls: MAX_REMOTE_CALLS },
  };
}

function partsText(content) {
  return (content?.parts ?? []).filter((part) => typeof part.text === "string" && !part.thought).map((part) => part.text).join("");
}

async function send(chat, message, stream) {
  if (!stream) {
    const response = await chat.sendMessage({ message });
    return response.text ?? "";
  }
  let text = "";
  for await (const chunk of await chat.sendMessageStream({ message })) {
    // The SDK yields the function responses it sent as a chunk of role "user"; only the model's text counts.
    const content = chunk.candidates?.[0]?.content;
    if (content?.role !== "user") text += partsText(content);
  }
  return text;
}

async function run(c, { callTool }) {
  if (c.api !== "gemini") return { skipped: UNSUPPORTED[c.api] ?? ONLY_GEMINI };
  if (c.history?.length && c.history_api !== "gemini") {
    return {
      skipped:
        `a Chat's history is Gemini Content only (chats.create({ history })): the SDK has no form for a ` +
        `conversation begun on ${c.history_api}`,
    };
  }
  if (c.interrupted?.length) {
    return {
      skipped:
        "a Chat records a turn in its history only when sendMessage returns (Chat.recordHistory): a run cut " +
        "off before its tool answered leaves nothing of that run to continue",
    };
  }
  const ai = new GoogleGenAI({
    apiKey: c.api_key,
    httpOptions: {
      baseUrl: c.base_url,
      ...(c.settings?.api_version ? { apiVersion: c.settings.api_version } : {}),
      ...(c.settings?.headers && Object.keys(c.settings.headers).length ? { headers: c.settings.headers } : {}),
    },
  });
  let history = structuredClone(c.history_wire ?? []);
  const runs = runsOf(c);
  // A history that ends in the user's turn is continued by sending that turn: a Chat sends its history
  // and the new message, and a message is required.
  let pending = null;
  if (runs[0] === null && history.at(-1)?.role === "user") pending = history.pop().parts;
  const chat = ai.chats.create({ model: c.model, history, config: config(c, callableTool(c, callTool)) });
  let output = "";
  for (const prompt of runs) {
    const message = prompt ?? pending;
    if (message === null || message === undefined) throw new Error("the restored history ends in the model's turn and the run has no user message");
    output = await send(chat, message, Boolean(c.stream));
  }
  return { output };
}

function implementation() {
  const libraries = installedVersions(import.meta.url, PACKAGES);
  return {
    name: "google-genai-js",
    version: libraries["@google/genai"],
    libraries,
    apis: ["gemini"],
    unsupported: UNSUPPORTED,
    homepage: "https://github.com/googleapis/js-genai",
    continues: ["history", "sessions"],
    notes:
      "ai.chats.create with the case's tools as one CallableTool (automatic function calling); " +
      "sendMessageStream when the case streams; " +
      (BY_NAME ? "each functionResponse under the call's name only, as mcpToTool's" : "each functionResponse under the call's id and name"),
  };
}

await serve({ root: import.meta.url, implementation, run });
