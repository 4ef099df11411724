// A harness built on the shared Node harness kit (harnesses/node-kit), for the kit's own protocol
// test (tests/test_harness_node_kit.py). Each case's prompt names what its run does.
import { serve } from "../../harnesses/node-kit/index.mjs";

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
    default:
      return { output: `echo: ${c.prompt}` };
  }
}

await serve({
  root: import.meta.url,
  implementation: () => ({ name: "kit-test", version: "1.0.0", libraries: { "kit-test": "1.0.0" }, apis: ["openai-chat"] }),
  run,
});
