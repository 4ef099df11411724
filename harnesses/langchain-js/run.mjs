// LangChain.js under the toolcall-conformance harness protocol (docs/harness.md): for each case it
// runs LangChain's own tool loop, the v1 agent (`createAgent` from `langchain`), with the case's tools
// made by `tool(...)` and the integration package for the case's API pointed at the replay server.
//
//   npm ci --prefix harnesses/langchain-js
//   conformance run --harness 'node harnesses/langchain-js/run.mjs'
//   conformance run --harness 'node harnesses/langchain-js/run.mjs --gemini=google' --api gemini
//
// With --gemini=google the harness runs @langchain/google's ChatGoogle for Gemini instead of
// @langchain/google-genai's ChatGoogleGenerativeAI, as its own column (langchain-js-google).
//
// The protocol itself is the shared harness kit's (it keeps stdout for the protocol and sends the
// libraries' logs and LANGCHAIN_JS_HARNESS_TRACE to stderr); this file picks the column and loads the
// agent.
import { installedVersions, log, serve } from "@toolcall-conformance/harness-kit";

const GEMINI = process.argv.find((a) => a.startsWith("--gemini="))?.slice("--gemini=".length);
if (GEMINI !== undefined && GEMINI !== "google") {
  log(`unknown --gemini=${GEMINI}: the only alternative is --gemini=google`);
  process.exit(2);
}

const PACKAGES = [
  "langchain",
  "@langchain/core",
  "@langchain/langgraph",
  "@langchain/openai",
  "@langchain/anthropic",
  "@langchain/google-genai",
  "@langchain/google",
  "@langchain/mistralai",
  "@langchain/aws",
  "@langchain/ollama",
  "@langchain/cohere",
  "openai",
  "@anthropic-ai/sdk",
  "@google/generative-ai",
  "@mistralai/mistralai",
  "@aws-sdk/client-bedrock-runtime",
  "@smithy/node-http-handler",
  "ollama",
];

if (process.env.LANGCHAIN_JS_HARNESS_TRACE === "1") {
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input.url;
    const body = typeof init?.body === "string" ? init.body : "";
    log(`-> ${init?.method ?? "GET"} ${url} ${body.slice(0, 4000)}`);
    return original(input, init);
  };
}

async function run(c) {
  // Loaded on first use, after the trace hook is in place, so that the SDKs see the hooked fetch.
  const { runAgent } = await import("./agent.mjs");
  return runAgent(c, { gemini: GEMINI });
}

async function implementation() {
  const libraries = installedVersions(import.meta.url, PACKAGES);
  const { APIS, UNSUPPORTED, GOOGLE_VARIANT } = await import("./providers.mjs");
  const notes = "createAgent (LangChain v1 agent) with tool(); invoke, or stream with streamMode messages when the case streams";
  const identity = {
    name: "langchain-js",
    version: libraries.langchain,
    libraries,
    apis: APIS,
    unsupported: UNSUPPORTED,
    homepage: "https://github.com/langchain-ai/langchainjs",
    continues: ["history", "sessions", "handoffs"],
    notes,
  };
  if (GEMINI !== "google") return identity;
  return {
    ...identity,
    name: "langchain-js-google",
    apis: GOOGLE_VARIANT.apis,
    unsupported: Object.fromEntries(
      [...APIS, ...Object.keys(UNSUPPORTED)].filter((a) => !GOOGLE_VARIANT.apis.includes(a)).map((a) => [a, GOOGLE_VARIANT.reason]),
    ),
    notes: notes.replace("createAgent", "ChatGoogle in createAgent"),
  };
}

await serve({ root: import.meta.url, implementation, run, describe: (error) => String(error?.message ?? error).slice(0, 2000) });
