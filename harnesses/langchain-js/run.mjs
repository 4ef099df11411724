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
// Commands arrive as JSON lines on stdin; answers go to stdout, one JSON line each; everything else
// (the libraries' logs, LANGCHAIN_JS_HARNESS_TRACE) goes to stderr.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

// A library that logs with console.log would write into the protocol's stream: logs go to stderr.
const protocolOut = process.stdout.write.bind(process.stdout);
for (const level of ["log", "info", "debug"]) console[level] = (...args) => console.error(...args);

const PROTOCOL = 1;
const GEMINI = process.argv.find((a) => a.startsWith("--gemini="))?.slice("--gemini=".length);
if (GEMINI !== undefined && GEMINI !== "google") {
  console.error(`unknown --gemini=${GEMINI}: the only alternative is --gemini=google`);
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

function installedVersion(name) {
  const path = new URL(`./node_modules/${name}/package.json`, import.meta.url);
  try {
    return JSON.parse(readFileSync(path, "utf8")).version;
  } catch {
    return "not installed";
  }
}

// Stack traces name files under this directory relative to the repository, not this machine.
const HERE = new URL(".", import.meta.url);
function relative(text) {
  return text.split(HERE.href).join("harnesses/langchain-js/").split(HERE.pathname).join("harnesses/langchain-js/");
}

function answer(message) {
  protocolOut(JSON.stringify(message) + "\n");
}

const trace = process.env.LANGCHAIN_JS_HARNESS_TRACE === "1";
if (trace) {
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input.url;
    const body = typeof init?.body === "string" ? init.body : "";
    console.error(`-> ${init?.method ?? "GET"} ${url} ${body.slice(0, 4000)}`);
    return original(input, init);
  };
}

async function run(c) {
  // Loaded on first use, after the trace hook is in place, so that the SDKs see the hooked fetch.
  const { runAgent } = await import("./agent.mjs");
  return runAgent(c, { gemini: GEMINI });
}

function started() {
  const libraries = Object.fromEntries(PACKAGES.map((p) => [p, installedVersion(p)]));
  libraries.node = process.version;
  return {
    version: PROTOCOL,
    implementation: {
      name: "langchain-js",
      language: "javascript",
      version: libraries.langchain,
      libraries,
      apis: [],
      unsupported: {},
      homepage: "https://github.com/langchain-ai/langchainjs",
      notes: "createAgent (LangChain v1 agent) with tool(); invoke, or stream with streamMode messages when the case streams",
    },
  };
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let command;
  try {
    command = JSON.parse(line);
  } catch {
    console.error(`not JSON: ${line.slice(0, 200)}`);
    continue;
  }
  if (command.cmd === "start") {
    const hello = started();
    const { APIS, UNSUPPORTED, GOOGLE_VARIANT } = await import("./providers.mjs");
    if (GEMINI === "google") {
      hello.implementation.name = "langchain-js-google";
      hello.implementation.apis = GOOGLE_VARIANT.apis;
      hello.implementation.unsupported = Object.fromEntries(
        [...APIS, ...Object.keys(UNSUPPORTED)].filter((a) => !GOOGLE_VARIANT.apis.includes(a)).map((a) => [a, GOOGLE_VARIANT.reason]),
      );
      hello.implementation.notes = hello.implementation.notes.replace("createAgent", "ChatGoogle in createAgent");
    } else {
      hello.implementation.apis = APIS;
      hello.implementation.unsupported = UNSUPPORTED;
    }
    answer(hello);
  } else if (command.cmd === "run") {
    try {
      const result = await run(command.case);
      if (result.skipped) answer({ seq: command.seq, skipped: result.skipped });
      else answer({ seq: command.seq, ok: true, output: String(result.output ?? "") });
    } catch (error) {
      answer({
        seq: command.seq,
        errored: {
          message: relative(String(error?.message ?? error)).slice(0, 2000),
          detail: relative(String(error?.stack ?? "")),
        },
      });
    }
  } else if (command.cmd === "stop") {
    break;
  }
}
process.exit(0);
