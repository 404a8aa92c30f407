/**
 * Tool outputs that JSON writes as something else than what they hold.
 * src/engine/tool-boundary.ts (`lostIn`): "What JSON.stringify wrote as `{}`
 * though it holds something" is refused as not JSON (a Map, a Set, a
 * promise, an Error, a Response or another object of a class with no own
 * keys), so the model is never shown `{}` for data that was there; README
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
  // Was: an Error (returned from a catch, not thrown) wrote as {} (its message and stack are not enumerable), and
  // lostObject (src/engine/tool-boundary.ts) only looked for Maps, Sets and promises, so the model was told the
  // lookup gave `{}` and the journal kept {}: the reason it failed was lost unseen. Now an object of a class with no
  // own keys is lost, and an Error is named with what it says: the call fails (the journal keeps the error, never
  // {}), and the model reads the Error's name and message, with how to fix the tool.
  it("an Error returned (not thrown): the model is not shown {} for it, but what it says", async () => {
    const lm = scripted(replies());
    const store = memoryStore();
    await desk(() => new Error("order A-1 is not in the database")).conversation("err", { store, lm }).send("Where is A-1?");
    const [[, content]] = toolResults(lm.requests[1]) as [[string, string]];
    expect(content).not.toBe("{}");
    expect(content).toBe('Error: its output is not JSON (an Error ("order A-1 is not in the database") is written as {}: throw it, or return its message); return plain data');
    const done = (await store.read("err")).find((r) => r.kind === "tool") as { output?: unknown; error?: string } | undefined;
    expect(done).not.toHaveProperty("output");
    expect(done?.error).toBe(content.slice("Error: ".length));
  });

  // Was: a fetch Response returned without `await res.json()` (the commonest slip in a tool's body) wrote as {}
  // and passed lostObject (src/engine/tool-boundary.ts): it has no own keys, no toJSON and no then. The model was
  // told the order is `{}`. Now an object of a class (a prototype other than a realm's Object.prototype or null)
  // that writes as {} with no toJSON is refused, as a Map is, naming its class; a Response says how to read it.
  it("a fetch Response returned unread: the model is told the output is not JSON, not shown {}", async () => {
    const lm = scripted(replies());
    await desk(() => new Response('{"order":"A-1","status":"shipped"}'))("Where is A-1?", { lm });
    const [[, content]] = toolResults(lm.requests[1]) as [[string, string]];
    expect(content).toMatch(/^Error: .*not JSON/);
    expect(content).toContain("a Response is written as {} (read it: return await res.json() or await res.text())");
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
