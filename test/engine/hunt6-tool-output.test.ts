/**
 * Tool outputs that JSON writes as something else than what they hold.
 * src/engine/tool-boundary.ts (`lostIn`): "What JSON.stringify wrote as `{}`
 * though it holds something" is refused as not JSON (a Map, a Set, a
 * promise), so the model is never shown `{}` for data that was there; README
 * "A first tool": a tool that returns what is not JSON "is reported to the
 * model". Plain data, however large, reaches the model and the journal as it is.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

function desk(output: () => unknown) {
  const look = tool("look", { description: "Look the order up.", input: { id: z.string() }, effects: "reads" }, () => output());
  return ai("desk", { description: "Answer.", input: { q: z.string() }, tools: [look] });
}
const replies = () => [{ toolCalls: [{ name: "look", input: { id: "A-1" } }] }, "done"];

describe("tool outputs JSON writes as {}", () => {
  // BUG: an Error (returned from a catch, not thrown) writes as {} (its message and stack are not enumerable), and
  // lostObject (src/engine/tool-boundary.ts:64-76) only looks for Maps, Sets and promises, so the model is told
  // the lookup gave `{}` and the journal keeps {}: the reason it failed is lost unseen. Fix: treat an Error
  // (isInstance(value, Error)) as lost (or write its message, as thrownText does for a thrown one).
  it.fails("an Error returned (not thrown): the model is not shown {} for it", async () => {
    const lm = scripted(replies());
    await desk(() => new Error("order A-1 is not in the database"))("Where is A-1?", { lm });
    const [[, content]] = toolResults(lm.requests[1]) as [[string, string]];
    expect(content).not.toBe("{}");
  });

  // BUG: a fetch Response returned without `await res.json()` (the commonest slip in a tool's body) writes as {}
  // and passes lostObject (src/engine/tool-boundary.ts:64-76): it has no own keys, no toJSON and no then. The
  // model is told the order is `{}`. Fix: refuse an object of a class (a prototype other than Object's or null's)
  // that writes as {} with no toJSON, as a Map is refused, naming its class ("a Response is written as {}").
  it.fails("a fetch Response returned unread: the model is told the output is not JSON, not shown {}", async () => {
    const lm = scripted(replies());
    await desk(() => new Response('{"order":"A-1","status":"shipped"}'))("Where is A-1?", { lm });
    const [[, content]] = toolResults(lm.requests[1]) as [[string, string]];
    expect(content).toMatch(/^Error: .*not JSON/);
  });

  it("a plain empty object, and a class instance whose fields are its own, are plain data: shown as JSON", async () => {
    class Order {
      constructor(
        readonly id: string,
        readonly status: string,
      ) {}
    }
    const lm = scripted([...replies().slice(0, 1), ...replies()]);
    const fn = ai("desk", {
      description: "Answer.",
      input: { q: z.string() },
      tools: [tool("look", { description: "Look.", input: { id: z.string() }, effects: "reads" }, ({ id }) => ({ found: {}, order: new Order(id, "shipped") }))],
    });
    expect(await fn("Where is A-1?", { lm })).toBe("done");
    expect(toolResults(lm.requests[1])).toEqual([["look", '{"found":{},"order":{"id":"A-1","status":"shipped"}}']]);
  });
});

describe("a huge string output", () => {
  it("reaches the model whole and is kept whole in the conversation's records", async () => {
    const big = `${"x".repeat(4 * 1024 * 1024)}\u00e9\ud83d\ude00end`;
    const lm = scripted(replies());
    const store = memoryStore();
    expect(await desk(() => big).conversation("big", { store, lm }).send("Where is A-1?")).toBe("done");
    const [[, content]] = toolResults(lm.requests[1]) as [[string, string]];
    expect(content.length).toBe(big.length);
    expect(content === big).toBe(true);
    const done = (await store.read("big")).find((r) => r.kind === "tool") as { output?: unknown } | undefined;
    expect(done?.output === big).toBe(true);
  });
});
