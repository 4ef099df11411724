// The harness protocol (docs/harness.md, conformance/schemas/harness.schema.json) for Node.js
// harnesses, so that each harness holds only its library's tool loop:
//
//   import { serve } from "@toolcall-conformance/harness-kit";
//   serve({ root: import.meta.url, implementation: () => ({ name, version, libraries, apis }),
//           run: async (c, { callTool }) => ({ output }) /* or { skipped: "why" } */ });
//
// Import it before the library: on import it keeps stdout for the protocol alone and sends
// everything else printed there (console.log, a library's own process.stdout.write) to stderr, and
// it lets every connection (`fetch`, `node:http`, `node:https`, `node:net`) reach this machine only.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import net from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export { restoredHistory, textOf } from "./history.mjs";

export const PROTOCOL = 1;

const protocolOut = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr);
for (const level of ["log", "info", "debug", "warn"]) console[level] = console.error;

// Every request a harness makes goes to the suite's replay on this machine. A library that reaches
// further (a telemetry exporter, a model registry, a provider URL the harness failed to override)
// gets this error instead of the network, and the case shows where it tried to go.
// CONFORMANCE_HARNESS_TRACE=1 logs each request (method, URL, body) to stderr; it only looks.
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
const TRACE = process.env.CONFORMANCE_HARNESS_TRACE === "1";
const networkFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  if (!LOOPBACK.has(url.hostname)) throw new Error(`the harness allows requests to the replay on 127.0.0.1 only; refused ${url.origin}`);
  if (TRACE) process.stderr.write(`>> ${init?.method ?? input?.method ?? "GET"} ${url}\n${typeof init?.body === "string" ? init.body + "\n" : ""}`);
  return networkFetch(input, init);
};

// Below fetch, every TCP connection (node:http and node:https agents, node:net, undici's own sockets,
// TLS on top of them) is opened by net.Socket's connect: one that names a host beyond the loopback
// fails as a refused connection would, before any name is looked up. A Unix socket path is local.
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
const loopback = (host) => LOOPBACK_HOSTS.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
function connectHost(args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0]; // net's own normalized [options, cb]
  if (first !== null && typeof first === "object") {
    if (first.path !== undefined && first.port === undefined) return null;
    // A lookup of the caller's own may resolve even "localhost" anywhere: only an address is taken as said.
    if (typeof first.lookup === "function" && !net.isIP(first.host ?? "")) return `${first.host ?? "localhost"} (looked up by the caller)`;
    return String(first.host ?? "localhost");
  }
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    return typeof args[1] === "string" ? args[1] : "localhost";
  }
  return null; // a path: a Unix socket
}
const socketConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
  const host = connectHost(args);
  if (host !== null && !loopback(host)) {
    const refused = new Error(`the harness allows connections to the replay on 127.0.0.1 only; refused ${host}`);
    refused.code = "ECONNREFUSED";
    process.nextTick(() => this.destroy(refused));
    return this;
  }
  return socketConnect.apply(this, args);
};

/** A recorded declaration's keys in camelCase (`max_uses` -> `maxUses`), at every depth: the shape the
 * JavaScript libraries' provider-tool factories take their options in. */
export function camelKeys(value) {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [camel(k), camelKeys(v)]));
}

const camel = (key) => key.replace(/_([a-z0-9])/g, (_, ch) => ch.toUpperCase());

/** A recorded declaration without its null fields, at every depth. A null field is one the application
 * left unset (the Python SDKs send None as null); the factories' option schemas take an absent option,
 * and refuse null. */
export function withoutNulls(value) {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

export function log(...parts) {
  process.stderr.write(parts.map(String).join(" ") + "\n");
}

function answer(message) {
  protocolOut(JSON.stringify(message) + "\n");
}

/** The directory of a module URL (a harness's `import.meta.url`), as a file: URL ending in "/". */
function directoryOf(root) {
  return new URL(".", root);
}

/** The installed version of each package, read from the harness's node_modules (a package's
 * `exports` may hide its package.json from import): at the top, else where npm nested it under
 * another package (two versions of one package: `"1.2.0, 2.0.1"`); "not installed" where it is absent. */
export function installedVersions(root, names) {
  const top = fileURLToPath(new URL("node_modules/", directoryOf(root)));
  const versions = {};
  for (const name of names) {
    const found = versionOf(join(top, name)) ?? nestedVersions(top, name);
    versions[name] = found ?? "not installed";
  }
  return versions;
}

function versionOf(directory) {
  try {
    return JSON.parse(readFileSync(join(directory, "package.json"), "utf8")).version ?? null;
  } catch {
    return null;
  }
}

// npm nests a package under the one that needs another version of it than the top holds
// (node_modules/@scope/a/node_modules/name): look a few levels down, never following links.
function nestedVersions(top, name, depth = 3) {
  const seen = new Set();
  const walk = (modules, level) => {
    if (level > depth) return;
    let entries;
    try {
      entries = readdirSync(modules, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      const packages = entry.name.startsWith("@")
        ? readdirSync(join(modules, entry.name), { withFileTypes: true })
            .filter((e) => e.isDirectory())
            .map((e) => join(modules, entry.name, e.name))
        : [join(modules, entry.name)];
      for (const pkg of packages) {
        const version = versionOf(join(pkg, "node_modules", name));
        if (version) seen.add(version);
        walk(join(pkg, "node_modules"), level + 1);
      }
    }
  };
  walk(top, 1);
  return seen.size ? [...seen].sort().join(", ") : null;
}

/** Thrown by callTool when the scenario cuts the run off before the tool answers (the user cancelled,
 * the process died): the run ends there, without a result, and the session's next run continues the
 * conversation (docs/harness.md). A harness whose library cannot keep such a run says so in a skip. */
export class RunInterrupted extends Error {
  constructor(message) {
    super(message);
    this.name = "RunInterrupted";
  }
}

/** The runs of a case's session, in order: each run's user message, or null where the first run
 * continues the case's restored history without one. A case from before sessions has one run. */
export function runsOf(c) {
  return Array.isArray(c.runs) && c.runs.length ? c.runs : [c.prompt];
}

/** A tool's output from the replay server: a toolCall POSTed to the case's tools_url. */
export async function callTool(toolsUrl, name, args, callId) {
  const response = await fetch(toolsUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, arguments: args ?? {}, call_id: callId ?? null }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`the replay's tool endpoint answered HTTP ${response.status}: ${text.slice(0, 300)}`);
  const answered = JSON.parse(text);
  if (typeof answered.interrupted === "string") throw new RunInterrupted(answered.interrupted);
  const output = answered.output;
  if (typeof output !== "string") throw new Error(`the replay's tool endpoint answered no output string: ${text.slice(0, 300)}`);
  return output;
}

// Paths in errors are named from the root of the harness's repository (the nearest directory above the
// harness holding `.git`, else the harness's own directory), so that results recorded on two machines
// read the same: `harnesses/vercel-ai/node_modules/ai/...`.
function repositoryOf(root) {
  let directory = fileURLToPath(directoryOf(root));
  for (let up = directory; ; up = dirname(up)) {
    if (existsSync(join(up, ".git"))) return up.endsWith("/") ? up : up + "/";
    if (dirname(up) === up) return directory;
  }
}

function relativeTo(repository, text) {
  const href = new URL(`file://${repository}`).href;
  return text.split(href).join("").split(repository).join("");
}

/** The stack of an error and of up to three of its causes. */
export function stackOf(error) {
  const lines = [String(error?.stack ?? error)];
  let cause = error?.cause;
  for (let depth = 0; cause && depth < 3; depth++, cause = cause.cause) lines.push(`caused by: ${cause?.stack ?? cause}`);
  return lines.join("\n");
}

/** A rejection the library left unhandled while a case ran: that case's error, with the rejection as its cause. */
export class UnhandledRejection extends Error {
  constructor(reason) {
    super(`the library left a rejection unhandled: ${reason?.message ?? String(reason)}`, { cause: reason });
    this.name = "UnhandledRejection";
  }
}

const defaultDescribe = (error) => String(error?.message ?? error);

function ran(seq, result) {
  if (typeof result?.skipped === "string" && result.skipped) return { seq, skipped: result.skipped };
  return { seq, ok: true, output: String(result?.output ?? "") };
}

/**
 * Speak the protocol on stdin/stdout until `stop` or the end of stdin, then exit.
 *
 * - `root`: the harness's `import.meta.url` (its directory holds node_modules).
 * - `implementation()`: the `started` answer's implementation (name, version, libraries, apis, ...);
 *   `language` defaults to "javascript" and `libraries.node` to the running Node.js. A harness that
 *   can be handed a restored history (`case.history`, `case.history_wire`) or a session of several
 *   runs (`case.runs`, see `runsOf`) says so with `continues: ["history", "sessions"]`.
 * - `run(case, { callTool })`: the library's tool loop on one case; returns `{ output }` or
 *   `{ skipped: reason }`. What it throws becomes `errored`, with `describe(error)` as the message
 *   and the stack (causes included) as the detail.
 */
export async function serve({ root, implementation, run, describe = defaultDescribe }) {
  const repository = repositoryOf(root);
  const relative = (text) => relativeTo(repository, text);
  // A library's promise that rejects with no handler would end the process (Node's default), and with
  // it every case after this one: the rejection is the running case's error instead, and between cases
  // it is logged.
  let failRunning = null;
  process.on("unhandledRejection", (reason) => {
    if (failRunning) failRunning(reason);
    else log(`a rejection no one handled, between cases: ${stackOf(reason)}`);
  });
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let command;
    try {
      command = JSON.parse(line);
    } catch {
      log(`not a JSON command, ignored: ${line.slice(0, 200)}`);
      continue;
    }
    if (command === null || typeof command !== "object" || Array.isArray(command)) {
      log(`not a command object, ignored: ${line.slice(0, 200)}`);
      continue;
    }
    if (command.cmd === "start") {
      if (command.version !== PROTOCOL) log(`the suite speaks protocol ${command.version}; this harness speaks ${PROTOCOL}`);
      const identity = await implementation();
      answer({
        version: PROTOCOL,
        implementation: {
          language: "javascript",
          ...identity,
          libraries: { ...(identity.libraries ?? {}), node: process.version },
        },
      });
    } else if (command.cmd === "run") {
      const c = command.case;
      const unhandled = new Promise((_, reject) => {
        failRunning = (reason) => reject(new UnhandledRejection(reason));
      });
      try {
        const running = run(c, { callTool: (name, args, callId) => callTool(c.tools_url, name, args, callId) });
        answer(ran(command.seq, await Promise.race([running, unhandled])));
      } catch (error) {
        answer({ seq: command.seq, errored: { message: relative(describe(error)), detail: relative(stackOf(error)) } });
      } finally {
        failRunning = null;
        unhandled.catch(() => {});
      }
    } else if (command.cmd === "stop") {
      break;
    } else {
      log(`unknown command ignored: ${String(command.cmd).slice(0, 100)}`);
    }
  }
  // A library's open handles (keep-alive sockets, timers) must not keep the harness alive after stop.
  process.exit(0);
}
