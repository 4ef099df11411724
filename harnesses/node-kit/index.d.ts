// Types of the harness kit (index.mjs); the protocol itself is docs/harness.md and
// conformance/schemas/harness.schema.json in the toolcall-conformance repository.

/** The protocol version this kit speaks. */
export const PROTOCOL: 1;

/** A tool the case declares: a function tool (JSON Schema parameters), a custom tool, or a provider's own. */
export interface CaseTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  type?: string;
  [field: string]: unknown;
}

/** A hand-off's first leg: run on its own API for `steps` responses, then continue on the case's. */
export interface Leg {
  api: string;
  model: string;
  steps: number;
  base_url: string;
  tools_url: string;
  stream: boolean;
  recorded_tools?: Record<string, unknown>[];
  settings?: Record<string, unknown>;
  [field: string]: unknown;
}

/** The case of a `run` command (docs/harness.md, "The conversation"). */
export interface Case {
  id: string;
  api: string;
  base_url: string;
  tools_url: string;
  api_key: string;
  model: string;
  prompt: string;
  stream: boolean;
  tools: CaseTool[];
  server_tools?: Record<string, unknown>[];
  recorded_tools?: Record<string, unknown>[];
  settings?: { body?: Record<string, unknown>; headers?: Record<string, string>; [field: string]: unknown };
  history?: Record<string, unknown>[];
  history_wire?: Record<string, unknown>[];
  history_api?: string;
  runs?: (string | null)[];
  interrupted?: Record<string, unknown>[];
  legs?: Leg[];
  [field: string]: unknown;
}

/** What `run` returns: the final text, or why the library cannot express the case. */
export type RunResult = { output: string } | { skipped: string };

/** The `started` answer's implementation; `language` and `libraries.node` are filled in. */
export interface Implementation {
  name: string;
  version: string;
  apis: string[];
  libraries?: Record<string, string>;
  homepage?: string;
  continues?: ("history" | "sessions" | "handoffs")[];
  language?: string;
  [field: string]: unknown;
}

export type CallTool = (name: string, args: unknown, callId?: string | null) => Promise<string>;

export interface ServeOptions {
  /** The harness's `import.meta.url`: its directory holds node_modules. */
  root: string | URL;
  implementation: () => Implementation | Promise<Implementation>;
  run: (c: Case, tools: { callTool: CallTool }) => RunResult | Promise<RunResult>;
  /** The message of an `errored` answer for what `run` threw. */
  describe?: (error: unknown) => string;
}

/** Speak the protocol on stdin/stdout until `stop` or the end of stdin, then exit. */
export function serve(options: ServeOptions): Promise<never>;

/** A tool's output from the replay server; throws RunInterrupted for a call the case cuts off. */
export function callTool(toolsUrl: string, name: string, args: unknown, callId?: string | null): Promise<string>;

/** Thrown by callTool when the scenario cuts the run off before the tool answers. */
export class RunInterrupted extends Error {}

/** A promise the library left rejected with no handler while a case ran: that case's error. */
export class UnhandledRejection extends Error {}

/** A restored history's message (`c.history`): its role and parts, as docs/harness.md shows them; each call
 * and result part of `restoredHistory`'s messages carries the `id` the library knows it by. */
export interface HistoryMessage {
  role: "user" | "system" | "assistant" | "tool";
  parts: ({ type: string; id?: string; call_id?: string | null; [field: string]: unknown })[];
  [field: string]: unknown;
}

/** The case's restored history with an id on every call and result: the saved one, or `mintId()` for a call
 * saved without one, its results taking that id in order. */
export function restoredHistory(c: Case, mintId: () => string): HistoryMessage[];

/** A message's text parts, joined. */
export function textOf(message: HistoryMessage): string;

/** The runs of a case's session, in order (a string is a user message; null continues the history). */
export function runsOf(c: Case): (string | null)[];

/** The installed version of each package under the harness's node_modules, nested ones included. */
export function installedVersions(root: string | URL, names: string[]): Record<string, string>;

/** A recorded declaration's keys in camelCase, at every depth. */
export function camelKeys<T>(value: T): T;

/** A recorded declaration without its null fields, at every depth. */
export function withoutNulls<T>(value: T): T;

/** The stack of an error and of up to three of its causes. */
export function stackOf(error: unknown): string;

/** A line to stderr (stdout is the protocol's). */
export function log(...parts: unknown[]): void;
