// A restored history as the Vercel AI SDK's ModelMessages, for a harness whose library is built on the
// AI SDK (the AI SDK itself, Mastra, ...): plain objects in the shape `generateText({ messages })` takes,
// so the kit depends on no AI SDK release.
//
//   import { modelMessages } from "@toolcall-conformance/harness-kit/ai-sdk";
//   const messages = modelMessages(c, { mintId: generateId, signatureKeys: { gemini: "google" } });
import { restoredHistory, textOf } from "./history.mjs";

/** The case's restored history as the ModelMessages an application keeps from `response.messages`,
 * provider-neutral, so that a conversation begun on another provider continues on this one as the AI
 * SDK documents. Ids as `restoredHistory` gives them (`mintId`: the id the library mints for a call read
 * without one). A call's thought signature goes where the provider that reads it keeps it: under
 * `providerOptions[signatureKeys[c.history_api]].thoughtSignature` (Google's provider: `google`). */
export function modelMessages(c, { mintId, signatureKeys = {} }) {
  const key = signatureKeys[c.history_api];
  return restoredHistory(c, mintId).flatMap((message) => {
    if (message.role === "assistant") {
      const content = message.parts.map((part) => {
        if (part.type === "text") return { type: "text", text: part.text };
        const signature = part.extra?.thoughtSignature ?? part.extra?.thought_signature;
        return {
          type: "tool-call",
          toolCallId: part.id,
          toolName: part.name,
          input: part.arguments ?? {},
          ...(part.provider_executed ? { providerExecuted: true } : {}),
          ...(signature && key ? { providerOptions: { [key]: { thoughtSignature: signature } } } : {}),
        };
      });
      return [{ role: "assistant", content }];
    }
    if (message.role === "tool") {
      const content = message.parts.map((part) => ({
        type: "tool-result",
        toolCallId: part.id,
        toolName: part.name ?? "",
        output: { type: "text", value: String(part.output ?? "") },
      }));
      return [{ role: "tool", content }];
    }
    return message.role === "user" || message.role === "system" ? [{ role: message.role, content: textOf(message) }] : [];
  });
}
