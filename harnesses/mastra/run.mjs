// Mastra (@mastra/core) under the toolcall-conformance harness protocol (docs/harness.md): for each
// case a Mastra Agent with the case's tools (`createTool`, the case's JSON Schema as its input
// schema) runs its own tool loop (`agent.generate`, or `agent.stream` when the recording streamed)
// through Mastra's model router, pointed at the replay server.
//
//   npm ci --prefix harnesses/mastra
//   conformance run --harness 'node harnesses/mastra/run.mjs'
//
// The protocol itself is the shared harness kit's; this file holds Mastra's tool loop only.
import { installedVersions, serve } from "@toolcall-conformance/harness-kit";

// Mastra sends usage telemetry and refreshes its model registry over the network by default.
process.env.MASTRA_TELEMETRY_DISABLED = "1";
process.env.MASTRA_OFFLINE = "1";

const { Agent } = await import("@mastra/core/agent");
const { createTool } = await import("@mastra/core/tools");

// The longest recorded conversation has fewer turns; a loop that runs on fails the case.
const MAX_STEPS = 12;

const PACKAGES = ["@mastra/core", "@mastra/schema-compat", "zod"];

const trimmed = (url) => url.replace(/\/+$/, "");

// The model router's configuration for each API, as Mastra documents it: an OpenAI-compatible
// endpoint is `{ id, url, apiKey }` (Chat Completions, or Responses with `api: "responses"`); a
// provider of the router's own is its `provider/model` id, its base URL the `<PROVIDER>_BASE_URL`
// variable (the router reads MISTRAL_BASE_URL for Mistral, whose registry entry has a URL; the
// Anthropic provider it bundles reads ANTHROPIC_BASE_URL itself).
const MODELS = {
  "openai-chat": (c) => ({ id: `openai/${c.model}`, url: c.base_url, apiKey: c.api_key }),
  "openai-responses": (c) => ({ id: `openai/${c.model}`, url: c.base_url, apiKey: c.api_key, api: "responses" }),
  "kimi-chat": (c) => ({ id: `moonshotai/${c.model}`, url: c.base_url, apiKey: c.api_key }),
  "anthropic-messages": (c) => routed(c, "anthropic", "ANTHROPIC_BASE_URL", `${trimmed(c.base_url)}/v1`),
  "mistral-chat": (c) => routed(c, "mistral", "MISTRAL_BASE_URL", c.base_url),
};

function routed(c, provider, variable, baseUrl) {
  process.env[variable] = baseUrl;
  return { id: `${provider}/${c.model.replace(/^.*models\//, "")}`, apiKey: c.api_key };
}

const UNSUPPORTED = {
  gemini:
    "Mastra's model router cannot point Google at another base URL: Google's registry entry has no URL " +
    "(so no GOOGLE_BASE_URL is read) and the @ai-sdk/google it bundles reads no base-URL variable",
  "azure-foundry": "Mastra's Azure gateway speaks Azure OpenAI deployments, not a Foundry project endpoint",
  openresponses: "Mastra's model router has no Open Responses provider",
  "bedrock-converse": "Mastra's model router has no Amazon Bedrock provider (it takes an AI SDK Bedrock model instead)",
  "cohere-v2": "Mastra's model router has no Cohere provider",
  "ollama-chat": "Mastra's model router reaches Ollama through its OpenAI-compatible endpoint (openai-chat), not /api/chat",
};

function declareTools(c, callTool) {
  const tools = {};
  for (const spec of c.tools) {
    if (spec.type === "custom") {
      return { skip: `Mastra tools take JSON input against a schema; it cannot declare the free-form custom tool '${spec.name}'` };
    }
    tools[spec.name] = createTool({
      id: spec.name,
      description: spec.description ?? "",
      inputSchema: { type: "object", properties: {}, ...(spec.parameters ?? {}) },
      execute: async (input, context) => callTool(spec.name, input, context?.agent?.toolCallId),
    });
  }
  const provider = (c.recorded_tools ?? []).filter((t) => t?.type && t.type !== "function" && t.type !== "custom" && !t.input_schema);
  if (provider.length) {
    return { skip: `the harness declares no Mastra tool for the provider tools ${provider.map((t) => t.type).join(", ")}` };
  }
  return { tools };
}

function toolChoice(c) {
  const choice = c.settings?.body?.tool_choice;
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  if (choice === "any" || choice?.type === "any") return "required";
  const name = choice?.name ?? choice?.function?.name;
  return name ? { type: "tool", toolName: name } : undefined;
}

async function run(c, { callTool }) {
  const model = MODELS[c.api];
  if (!model) return { skipped: UNSUPPORTED[c.api] ?? `the harness serves no ${c.api}` };
  const declared = declareTools(c, callTool);
  if (declared.skip) return { skipped: declared.skip };
  const agent = new Agent({
    id: "conformance",
    name: "conformance",
    instructions: "",
    model: model(c),
    tools: declared.tools,
  });
  const options = { maxSteps: MAX_STEPS };
  const choice = toolChoice(c);
  if (choice) options.toolChoice = choice;
  if (!c.stream) {
    const result = await agent.generate(c.prompt, options);
    if (result.error) throw result.error;
    return { output: result.text ?? "" };
  }
  const stream = await agent.stream(c.prompt, options);
  let failure;
  for await (const chunk of stream.fullStream) {
    if (chunk.type === "error") failure ??= chunk.payload?.error ?? chunk.error ?? chunk;
  }
  if (failure) throw failure instanceof Error ? failure : new Error(JSON.stringify(failure).slice(0, 1000));
  return { output: (await stream.text) ?? "" };
}

function implementation() {
  const libraries = installedVersions(import.meta.url, PACKAGES);
  return {
    name: "mastra",
    version: libraries["@mastra/core"],
    libraries,
    apis: Object.keys(MODELS),
    unsupported: UNSUPPORTED,
    homepage: "https://mastra.ai",
    notes: "Agent.generate / Agent.stream with createTool tools, through Mastra's model router",
  };
}

await serve({ root: import.meta.url, implementation, run });
