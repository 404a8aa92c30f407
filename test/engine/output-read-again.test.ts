/**
 * A tool's output is read once at its boundary; with a `toolResult` plugin
 * that keeps it (or fails), what was read is what is kept and shown. An
 * output whose getter throws when read a second time (a lazy value, a
 * closed handle) never fails the call with a raw SyntaxError, nor is said
 * to be a plugin's change it was not.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, tool, type Plugin } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";

/** An output whose `x` reads 1 the first time, then throws. */
const onceReadable = () => {
  let reads = 0;
  return {
    get x(): number {
      if (reads++ > 0) throw new Error("closed");
      return 1;
    },
  };
};

const deskWith = () => {
  const t = tool("lazy", { description: "d", input: {}, effects: "reads" }, () => onceReadable());
  return ai("desk", { description: "d", input: { q: z.string() }, tools: [t] });
};
const calls = () => [{ toolCalls: [{ name: "lazy", input: {} }] }, (r: { messages: { content: string }[] }) => `saw: ${r.messages.at(-1)!.content}`];

describe("a tool output that cannot be read twice", () => {
  it("with a toolResult plugin that keeps it: the model sees what the tool gave", async () => {
    const watched: unknown[] = [];
    const watch: Plugin = { name: "watch", version: "1", hooks: { toolResult: (r) => void watched.push(r.name) } };
    expect(await deskWith()("go", { lm: scripted(calls()), plugins: [watch] })).toBe('saw: {"x":1}');
    expect(watched).toEqual(["lazy"]);
  });

  it("with a toolResult plugin that fails: plugin-failed, and the tool's done record keeps what it gave", async () => {
    const store = memoryStore();
    const broken: Plugin = { name: "broken", version: "1", hooks: { toolResult: () => { throw new Error("down"); } } };
    const chat = deskWith().conversation("c", { store, lm: scripted(calls()), plugins: [broken] });
    const e = await chat.send("go").then(() => undefined, (e: unknown) => e);
    expect(e).toBeInstanceOf(FunctaiError);
    expect((e as FunctaiError).code).toBe("plugin-failed");
    expect((e as FunctaiError).message).toMatch(/broken failed on the result of desk\/lazy: down/);
    const done = (await store.read("c")).filter((r) => (r as { kind?: string }).kind === "tool");
    expect(done.map((r) => [(r as { state?: string }).state, (r as { output?: unknown }).output])).toEqual([["done", { x: 1 }]]);
  });
});
