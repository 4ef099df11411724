// A harness built on the shared Node harness kit (harnesses/node-kit), for the kit's own protocol
// test (tests/test_harness_node_kit.py). Each case's prompt names what its run does.
import { serve } from "../../harnesses/node-kit/index.mjs";
import http from "node:http";
import https from "node:https";
import net from "node:net";

/** What a request by node:http, node:https or node:net came to: "connected" or the error's message. */
function attempt(start) {
  return new Promise((resolve) => {
    const handle = start(() => resolve("connected"));
    handle.on("error", (error) => resolve(`error: ${error.message}`));
    handle.on("response", (response) => {
      response.resume();
      resolve(`answered ${response.statusCode}`);
    });
    if (typeof handle.end === "function" && !(handle instanceof net.Socket)) handle.end();
  });
}

async function run(c, { callTool }) {
  switch (c.prompt) {
    case "call":
      return { output: await callTool("get_weather", { city: "Paris" }, "call_1") };
    case "skip":
      return { skipped: "this harness cannot express the case" };
    case "throw":
      throw new Error("the library broke", { cause: new TypeError("deep cause") });
    case "print":
      console.log("a library logging to stdout");
      process.stdout.write("and writing to it\n");
      return { output: "quiet" };
    case "outside":
      await fetch("http://192.0.2.1/v1/chat/completions");
      return { output: "unreachable" };
    case "below-fetch": {
      const outside = await Promise.all([
        attempt(() => http.request("http://192.0.2.1/v1/chat/completions", { method: "POST" })),
        attempt(() => https.request("https://api.openai.com/v1/chat/completions", { method: "POST" })),
        attempt(() => http.request({ host: "localhost", lookup: (_h, _o, cb) => cb(null, "192.0.2.1", 4) })),
        attempt((done) => net.connect(443, "api.anthropic.com", done)),
        attempt((done) => net.connect({ port: 80, host: "192.0.2.1" }, done)),
      ]);
      const inside = await attempt(() => http.request(c.tools_url, { method: "GET" }));
      return { output: JSON.stringify({ outside, inside }) };
    }
    default:
      return { output: `echo: ${c.prompt}` };
  }
}

await serve({
  root: import.meta.url,
  implementation: () => ({ name: "kit-test", version: "1.0.0", libraries: { "kit-test": "1.0.0" }, apis: ["openai-chat"] }),
  run,
});
