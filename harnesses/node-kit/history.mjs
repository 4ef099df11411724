// A case's restored history (docs/harness.md, "Continued conversations") with the id each call and
// result goes by in the library: no side effects, so that a module of the kit's can import it alone.

/** The case's restored history (`c.history`, provider-neutral messages of `parts`) with an `id` on every
 * call and result: the saved `call_id`, or, for a call saved without one (Gemini before it gave ids),
 * the id `mintId()` gives it, as the library mints one when it reads such a response; a result saved
 * without an id takes the id of the call it answers, in order, since results of id-less calls pair by
 * order. A provider-executed (server) call has no result of the application's, so it takes no place in
 * that order. Every part that is not text in an assistant message is a call. */
export function restoredHistory(c, mintId) {
  let minted = [];
  return (c.history ?? []).map((message) => {
    const parts = message.parts ?? [];
    if (message.role === "assistant") {
      minted = [];
      return {
        ...message,
        parts: parts.map((part) => {
          if (part.type === "text") return part;
          const id = part.call_id || mintId();
          if (!part.provider_executed) minted.push(id);
          return { ...part, id };
        }),
      };
    }
    if (message.role === "tool") {
      return { ...message, parts: parts.map((part, i) => ({ ...part, id: part.call_id || minted[i] || mintId() })) };
    }
    return { ...message, parts };
  });
}

/** The text parts of a message, joined. */
export function textOf(message) {
  return (message.parts ?? []).map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("");
}
