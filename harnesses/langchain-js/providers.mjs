// One LangChain.js chat model per API, configured the way each integration's documentation shows,
// pointed at the replay's base URL, retries off. Request settings the recording used are passed where
// the integration has a field for them (`fields`), or as call options the agent's middleware hands
// to the model (`callOptions`); what neither can carry is left out.
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatBedrockConverse } from "@langchain/aws";
import { ChatGoogle } from "@langchain/google";
import { ChatGoogleGenerativeAI } from "@langchain/google-genai";
import { ChatMistralAI } from "@langchain/mistralai";
import { ChatOllama } from "@langchain/ollama";
import { ChatOpenAI } from "@langchain/openai";
import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";

export const UNSUPPORTED = {
  "cohere-v2":
    "@langchain/cohere's ChatCohere speaks Cohere's v1 chat API (it builds a CohereClient and sends message, " +
    "chatHistory and toolResults to POST /v1/chat); it has no v2 chat model",
};

const withoutSlash = (url) => url.replace(/\/+$/, "");

// Body fields of an OpenAI request the integration sets itself, or that the harness maps to a field.
const OPENAI_OWN = new Set(["store", "truncation", "tool_choice", "max_tokens", "max_completion_tokens", "max_output_tokens",
  "parallel_tool_calls", "reasoning", "include"]);

function openaiExtras(body) {
  return Object.fromEntries(Object.entries(body).filter(([k]) => !OPENAI_OWN.has(k)));
}

function openai(c, { responses }) {
  const body = c.settings?.body ?? {};
  const fields = {
    model: c.model,
    apiKey: c.api_key,
    configuration: { baseURL: c.base_url },
    maxRetries: 0,
    // Chat Completions pinned (false) or the Responses API asked for (true); left unset, ChatOpenAI
    // picks the Responses API itself for some models and tools.
    useResponsesApi: responses,
  };
  const callOptions = {};
  if (responses) {
    // store: false is what ChatOpenAI sends with zero data retention on.
    if (body.store === false) fields.zdrEnabled = true;
    if (body.truncation !== undefined) callOptions.truncation = body.truncation;
    if (body.include !== undefined) callOptions.include = body.include;
    if (body.reasoning !== undefined) fields.reasoning = body.reasoning;
    if (body.max_output_tokens !== undefined) fields.maxTokens = body.max_output_tokens;
  } else {
    const max = body.max_completion_tokens ?? body.max_tokens;
    if (max !== undefined) fields.maxTokens = max;
  }
  if (body.parallel_tool_calls !== undefined) callOptions.parallel_tool_calls = body.parallel_tool_calls;
  // The rest of the recorded body (Azure AI Foundry's agent_reference, ...) rides on modelKwargs.
  const extras = openaiExtras(body);
  if (Object.keys(extras).length) fields.modelKwargs = extras;
  return { model: new ChatOpenAI(fields), callOptions };
}

function anthropic(c) {
  const body = c.settings?.body ?? {};
  const headers = c.settings?.headers ?? {};
  const fields = {
    model: c.model,
    apiKey: c.api_key,
    anthropicApiUrl: c.base_url,
    maxRetries: 0,
  };
  if (body.max_tokens !== undefined) fields.maxTokens = body.max_tokens;
  if (body.thinking !== undefined) fields.thinking = body.thinking;
  const betas = (headers["anthropic-beta"] ?? "").split(",").map((b) => b.trim()).filter(Boolean);
  if (betas.length) fields.betas = betas;
  const callOptions = {};
  if (body.mcp_servers !== undefined) callOptions.mcp_servers = body.mcp_servers;
  if (body.container !== undefined) callOptions.container = body.container;
  return { model: new ChatAnthropic(fields), callOptions };
}

function gemini(c) {
  const body = c.settings?.body ?? {};
  const generation = body.generationConfig ?? {};
  const fields = {
    model: c.model,
    apiKey: c.api_key,
    baseUrl: c.base_url,
    maxRetries: 0,
  };
  // The Gemini SDK adds the API version itself (v1beta unless told).
  if (c.settings?.api_version) fields.apiVersion = c.settings.api_version;
  if (generation.thinkingConfig !== undefined) fields.thinkingConfig = generation.thinkingConfig;
  if (generation.maxOutputTokens !== undefined) fields.maxOutputTokens = generation.maxOutputTokens;
  return { model: new ChatGoogleGenerativeAI(fields), callOptions: {} };
}

// @langchain/google's ChatGoogle, the package LangChain.js names as the successor of
// ChatGoogleGenerativeAI and ChatVertexAI, on the Gemini Developer API: an `endpoint` with a scheme is
// used as it is, and the API key selects the Developer API.
function googleChat(c) {
  const body = c.settings?.body ?? {};
  const generation = body.generationConfig ?? {};
  const fields = {
    model: c.model,
    apiKey: c.api_key,
    endpoint: withoutSlash(c.base_url),
    platformType: "gai",
    maxRetries: 0,
  };
  if (c.settings?.api_version) fields.apiVersion = c.settings.api_version;
  if (generation.maxOutputTokens !== undefined) fields.maxOutputTokens = generation.maxOutputTokens;
  return { model: new ChatGoogle(fields), callOptions: {} };
}

function mistral(c) {
  const body = c.settings?.body ?? {};
  // The Mistral SDK's server URL has no version; it adds /v1/chat/completions itself.
  const fields = {
    model: c.model,
    apiKey: c.api_key,
    serverURL: withoutSlash(c.base_url).replace(/\/v1$/, ""),
    maxRetries: 0,
  };
  if (body.max_tokens !== undefined) fields.maxTokens = body.max_tokens;
  return { model: new ChatMistralAI(fields), callOptions: {} };
}

function bedrock(c) {
  // ChatBedrockConverse's endpointHost is always https; an AWS SDK client pointed at the base URL is
  // the integration's documented way to reach any other endpoint. Requests are SigV4-signed with
  // dummy credentials, as against the real service. The Bedrock runtime client speaks HTTP/2 by
  // default (for its bidirectional streams), which over plain HTTP means h2c; the replay speaks
  // HTTP/1.1, so the client gets the SDK's HTTP/1.1 handler. Converse and ConverseStream are the same
  // requests over either.
  const region = "us-east-1";
  const client = new BedrockRuntimeClient({
    region,
    endpoint: c.base_url,
    credentials: { accessKeyId: "AKIDCONFORMANCE", secretAccessKey: c.api_key },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),
  });
  const body = c.settings?.body ?? {};
  const fields = { model: c.model, region, client, maxRetries: 0 };
  const max = body.inferenceConfig?.maxTokens;
  if (max !== undefined) fields.maxTokens = max;
  return { model: new ChatBedrockConverse(fields), callOptions: {} };
}

function ollama(c) {
  return { model: new ChatOllama({ model: c.model, baseUrl: withoutSlash(c.base_url), maxRetries: 0 }), callOptions: {} };
}

const BUILDERS = {
  "openai-chat": (c) => openai(c, { responses: false }),
  // Kimi's platform documents the OpenAI SDK with Moonshot's base URL; LangChain.js's community
  // ChatMoonshot has a fixed URL and no tool calling.
  "kimi-chat": (c) => openai(c, { responses: false }),
  "openai-responses": (c) => openai(c, { responses: true }),
  // Azure AI Foundry's project endpoint (.../api/projects/{p}/openai/v1) is OpenAI's v1 API, which
  // Microsoft documents for the OpenAI client with that base URL.
  "azure-foundry": (c) => openai(c, { responses: true }),
  // An Open Responses server is a Responses API at a base URL.
  openresponses: (c) => openai(c, { responses: true }),
  "anthropic-messages": anthropic,
  gemini,
  "mistral-chat": mistral,
  "bedrock-converse": bedrock,
  "ollama-chat": ollama,
};

export const APIS = Object.keys(BUILDERS);

// The tool choice the recording made, in the agent's spelling ("auto", "none", "required" or a name).
export function toolChoice(c) {
  const body = c.settings?.body ?? {};
  const choice = body.tool_choice ?? body.toolConfig?.toolChoice ?? body.toolConfig?.functionCallingConfig?.mode;
  if (choice === undefined || choice === null) return undefined;
  if (typeof choice === "string") {
    const lowered = choice.toLowerCase();
    if (lowered === "any") return "required";
    return ["auto", "none", "required"].includes(lowered) ? lowered : undefined;
  }
  if (choice.type === "function") return choice.function?.name ?? choice.name;
  if (choice.type === "tool") return choice.name;
  if (choice.type === "any") return "required";
  if (choice.tool?.name) return choice.tool.name;
  if ("any" in choice) return "required";
  if ("auto" in choice) return "auto";
  return undefined;
}

// The variant that runs ChatGoogle for Gemini, and nothing else (`run.mjs --gemini=google`).
export const GOOGLE_VARIANT = {
  apis: ["gemini"],
  reason: "the langchain-js-google column runs @langchain/google's ChatGoogle on Gemini only; every other API is in the langchain-js column",
};

export function buildModel(c, { gemini } = {}) {
  if (gemini === "google" && c.api === "gemini") return googleChat(c);
  const builder = BUILDERS[c.api];
  if (!builder) throw new Error(`no LangChain.js chat model for ${c.api}`);
  return builder(c);
}
