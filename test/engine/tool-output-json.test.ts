/**
 * A tool output that is not JSON (a BigInt, a cycle, a throwing `toJSON`, a
 * function, or what JSON would write as `{}`: a Map, a Set, a promise) is
 * the tool's error, caught where it leaves the tool: the model is told (or
 * `tool-failed` with toolErrors "raise"), and the journal never sees it, so
 * the batch holding the model's reply is written, and a resume
 * replays the recorded error instead of running the tool again.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ai, FunctaiError, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

const cyclic = (): unknown => {
  const o: Record<string, unknown> = { a: 1 };
  o.self = o;
  return o;
};
const OUTPUTS: [string, () => unknown, RegExp][] = [
  ["a BigInt", () => ({ total: 10n }), /BigInt/],
  ["a cycle", cyclic, /circular/i],
  ["a toJSON that throws", () => ({ toJSON: () => { throw new Error("no JSON for you"); } }), /no JSON for you/],
  ["a function", () => () => 1, /\(a function has no JSON form\)/],
  ["a toJSON that gives undefined", () => ({ toJSON: () => undefined }), /\(an object whose toJSON gives no JSON value\)/],
  // JSON.stringify writes these as {}: the model would see nothing, and the journal keep nothing
  ["a Map", () => ({ orders: new Map([["A-1", "kettle"]]) }), /a Map is written as \{\}/],
  ["a Set", () => new Set(["A-1"]), /a Set is written as \{\}/],
  ["a promise left unawaited", () => ({ order: Promise.resolve("kettle") }), /a promise is written as \{\} \(an await is missing\)/],
];

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "functai-json-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A desk whose `look` tool (reading or changing) returns `output()`, counting its runs. */
function desk(output: () => unknown, effects: "reads" | "changes") {
  const runs = { n: 0 };
  const look = tool("look", { description: "Look.", input: { id: z.string() }, effects }, () => {
    runs.n++;
    return output();
  });
  return { fn: ai("desk", { description: "Answer.", input: { q: z.string() }, tools: [look] }), runs };
}
const replies = () => [{ toolCalls: [{ name: "look", input: { id: "A" } }] }, "done"];

describe("a tool output that is not JSON", () => {
  for (const [name, output, why] of OUTPUTS) {
    for (const effects of ["reads", "changes"] as const) {
      it(`${name} (${effects}): the model is told; the journal keeps the reply and the error; a later turn replays nothing wrong`, async () => {
        const { fn, runs } = desk(output, effects);
        const lm = scripted(replies());
        const chat = fn.conversation("c", { store: fsStore(dir), lm });
        expect(await chat.send("go")).toBe("done");
        const [tool, content] = toolResults(lm.requests[1])[0]!;
        expect(tool).toBe("look");
        expect(content).toMatch(/^Error: its output is not JSON/);
        expect(content).toMatch(why);
        expect(runs.n).toBe(1);
        // everything was written, and reads back from a fresh store: the reply, the tool's error, the end
        const records = await fsStore(dir).read("c");
        expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
        expect(records.filter((r) => r.kind === "reply")).toHaveLength(2);
        const done = records.filter((r) => r.kind === "tool" && (r as { state?: string }).state === "done");
        expect(done).toEqual([expect.objectContaining({ name: "look", error: expect.stringMatching(/not JSON/) })]);
        const [turn] = await fn.conversation("c", { store: fsStore(dir) }).turns();
        expect(turn!.state).toBe("done");
        expect(runs.n).toBe(1);
      });
    }
  }

  it('with toolErrors "raise": tool-failed, a FunctaiError naming the tool', async () => {
    const { fn } = desk(() => ({ n: 1n }), "reads");
    const error = await fn("go", { lm: scripted(replies()), toolErrors: "raise" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FunctaiError);
    expect((error as FunctaiError).code).toBe("tool-failed");
    expect((error as Error).message).toMatch(/desk\/look failed: its output is not JSON/);
  });

  it("a plugin that turns an output into one that is not JSON fails the call (plugin-failed); the tool's own output is kept", async () => {
    const { fn, runs } = desk(() => ({ fine: true }), "changes");
    const breaker: Plugin = { name: "breaker", version: "1", hooks: { toolResult: () => ({ output: { n: 1n } }) } };
    const chat = fn.conversation("p", { store: fsStore(dir), lm: scripted(replies()), plugins: [breaker] });
    const error = await chat.send("go").catch((e: unknown) => e);
    expect((error as FunctaiError).code).toBe("plugin-failed");
    const done = (await fsStore(dir).read("p")).filter((r) => r.kind === "tool" && (r as { state?: string }).state === "done");
    expect(done).toEqual([expect.objectContaining({ output: { fine: true } })]);
    expect(runs.n).toBe(1);
  });
});
