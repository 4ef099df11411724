// The case's tools as LangChain.js declares them. Function tools are `tool(...)` from
// @langchain/core/tools with the case's JSON Schema; their implementation asks the replay for its
// output (the harness kit's callTool). Provider tools the recording declared are passed the way LangChain.js
// documents them: a tool the application runs (local shell, shell, apply_patch, computer use) with
// @langchain/openai's factory and an `execute` that asks the replay; a tool the provider runs as the
// recorded declaration itself, which every LangChain.js chat model passes through to the provider.
import { tool } from "@langchain/core/tools";
import { customTool, tools as openaiTools } from "@langchain/openai";
import { interrupt } from "@langchain/langgraph";
import { callTool, RunInterrupted } from "@toolcall-conformance/harness-kit";

// Fields of a recorded function declaration that are the declaration itself, not extras.
const DECLARATION_FIELDS = new Set(["type", "name", "description", "parameters", "input_schema", "function", "strict"]);

// The replay names an item the client runs by its output item's type.
const CLIENT_ITEMS = {
  local_shell: "local_shell_call",
  shell: "shell_call",
  apply_patch: "apply_patch_call",
  computer_use_preview: "computer_call",
};

const RESPONSES_APIS = new Set(["openai-responses", "azure-foundry", "openresponses"]);

function recordedFunction(recorded, name) {
  return recorded.find((t) => t && (t.name === name || t.function?.name === name || t.toolSpec?.name === name));
}

// Extra fields of the recorded declaration (Anthropic's defer_loading or allowed_callers) ride on
// the LangChain tool's `extras`, which @langchain/anthropic copies onto the tool it sends.
function extrasOf(recorded) {
  if (!recorded || typeof recorded !== "object") return undefined;
  const extras = Object.fromEntries(Object.entries(recorded).filter(([k]) => !DECLARATION_FIELDS.has(k)));
  return Object.keys(extras).length ? extras : undefined;
}

function functionTool(spec, c) {
  const schema = spec.parameters ?? { type: "object", properties: {} };
  const declared = tool(
    async (input, config) => {
      try {
        return await callTool(c.tools_url, spec.name, input, config?.toolCall?.id);
      } catch (error) {
        // A run cut off before its tool answered pauses the way a LangGraph tool pauses a run: its
        // `interrupt()`, which leaves the call unanswered in the thread's checkpoint.
        if (error instanceof RunInterrupted) interrupt({ reason: error.message });
        throw error;
      }
    },
    { name: spec.name, description: spec.description ?? "", schema },
  );
  const extras = c.api === "anthropic-messages" ? extrasOf(recordedFunction(c.recorded_tools ?? [], spec.name)) : undefined;
  if (extras) declared.extras = { ...(declared.extras ?? {}), ...extras };
  return declared;
}

function freeformTool(spec, c) {
  // @langchain/openai's custom tool: free-form text in, text out.
  return customTool(async (input, config) => callTool(c.tools_url, spec.name, { input }, config?.toolCall?.id), {
    name: spec.name,
    description: spec.description ?? "",
  });
}

function clientRunResponsesTool(recorded, c) {
  const item = CLIENT_ITEMS[recorded.type];
  const execute = async (action, config) => callTool(c.tools_url, item, action, config?.toolCall?.id);
  switch (recorded.type) {
    case "local_shell":
      return openaiTools.localShell({ execute });
    case "shell":
      return openaiTools.shell({
        execute: async (action) => ({ output: await execute(action) }),
      });
    case "apply_patch":
      return openaiTools.applyPatch({ execute });
    case "computer_use_preview":
      return openaiTools.computerUse({
        displayWidth: recorded.display_width,
        displayHeight: recorded.display_height,
        environment: recorded.environment,
        execute: async (action) => screenshot(await execute(action)),
      });
    default:
      return undefined;
  }
}

// The replay answers a computer action with a screenshot; LangChain.js sends back an image URL.
function screenshot(output) {
  try {
    const parsed = JSON.parse(output);
    if (parsed && typeof parsed.image_url === "string") return parsed.image_url;
  } catch {
    // not JSON: the output is the image URL itself
  }
  return output;
}

function isFunctionDeclaration(recorded) {
  if (!recorded || typeof recorded !== "object") return true;
  if (recorded.type === "function" || recorded.type === "custom") return true;
  if ("functionDeclarations" in recorded || "toolSpec" in recorded) return true;
  // Anthropic's client tools have no type (or "custom"); server tools always carry a versioned type.
  return recorded.type === undefined && typeof recorded.name === "string" && "input_schema" in recorded;
}

/** Every tool of the case, as the agent is given them. */
export function buildTools(c) {
  const declared = [];
  for (const spec of c.tools ?? []) {
    declared.push(spec.type === "custom" ? freeformTool(spec, c) : functionTool(spec, c));
  }
  for (const recorded of c.recorded_tools ?? []) {
    if (isFunctionDeclaration(recorded)) continue;
    if (RESPONSES_APIS.has(c.api)) {
      const clientRun = clientRunResponsesTool(recorded, c);
      declared.push(clientRun ?? recorded);
    } else {
      declared.push(recorded);
    }
  }
  return declared;
}
