import type { Case } from "./index";

export interface ModelMessageOptions {
  /** The id the library mints for a call read without one (the AI SDK's `generateId`). */
  mintId: () => string;
  /** Per API the history was saved from, the providerOptions key a call's thought signature goes under. */
  signatureKeys?: Record<string, string>;
}

/** The case's restored history as AI SDK ModelMessages (user, system, assistant with tool-call parts, tool). */
export function modelMessages(c: Case, options: ModelMessageOptions): Record<string, unknown>[];
