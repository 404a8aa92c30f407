/**
 * A streamed `tool_result` carries the output as the model read it and the
 * journal kept it: one reading of what the tool returned, never the tool's
 * own object. Shown the live object, a consumer (a UI, the WebSocket
 * companion serialising it later) saw what the tool changed after it
 * returned, a getter read again, or a Date where the model read its text.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, type TurnEvent } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

/** A desk whose reading tool `look` returns `value()`, then a changing tool `touch` that runs `after()`. */
function desk(value: () => unknown, after: () => void = () => undefined) {
  const look = tool("look", { description: "Look.", input: { id: z.string() }, effects: "reads" }, () => value());
  const touch = tool("touch", { description: "Touch.", input: { id: z.string() }, effects: "changes" }, () => {
    after();
    return "touched";
  });
  return ai("desk", { description: "Help.", input: { q: z.string() }, tools: [look, touch] });
}
const replies = () => [{ toolCalls: [{ name: "look", input: { id: "A" } }] }, { toolCalls: [{ name: "touch", input: { id: "A" } }] }, "done"];

/** Streams the desk's turn in a conversation: the `look` result event, what the model read of it, and what its `done` record kept. */
async function lookSeen(fn: ReturnType<typeof desk>) {
  const store = memoryStore();
  const lm = scripted(replies());
  const s = fn.conversation("c", { store, lm }).stream({ q: "go" });
  const events: TurnEvent[] = [];
  for await (const e of s) events.push(e);
  expect(await s).toBe("done");
  const event = events.find((e) => e.type === "tool_result" && e.name === "look") as { output?: unknown };
  const read = toolResults(lm.requests[1]).find(([name]) => name === "look")![1];
  const done = (await store.read("c")).find((r) => r.kind === "tool" && r.name === "look" && r.state === "done") as { output?: unknown };
  return { event: event.output, read, kept: done.output };
}

describe("a streamed tool_result shows the output as the model read it and the journal kept it", () => {
  it("an object the tool goes on changing after it returned (a shared cart): the event shows it as it was returned", async () => {
    const cart = { items: ["kettle"] };
    const { event, read, kept } = await lookSeen(
      desk(
        () => cart,
        () => cart.items.push("mug"),
      ),
    );
    expect(read).toBe('{"items":["kettle"]}');
    expect(kept).toEqual({ items: ["kettle"] });
    expect(event).toEqual({ items: ["kettle"] });
  });

  it("a getter that gives another value each time it is read: the event shows the one reading the model was shown", async () => {
    let reads = 0;
    const { event, read, kept } = await lookSeen(
      desk(() => ({
        get count() {
          reads += 1;
          return reads;
        },
      })),
    );
    expect(read).toBe('{"count":1}');
    expect(kept).toEqual({ count: 1 });
    expect(JSON.stringify(event)).toBe(read);
  });

  it("a Date and a class with toJSON: the event shows the JSON the model read, not the tool's object", async () => {
    class Money {
      constructor(readonly cents: number) {}
      toJSON() {
        return { eur: this.cents / 100 };
      }
    }
    const { event, read, kept } = await lookSeen(desk(() => ({ at: new Date(0), price: new Money(1250) })));
    expect(read).toBe('{"at":"1970-01-01T00:00:00.000Z","price":{"eur":12.5}}');
    expect(kept).toEqual({ at: "1970-01-01T00:00:00.000Z", price: { eur: 12.5 } });
    expect(event).toEqual(kept);
  });

  it("an output as deep as JSON keeps (thousands of levels): the turn ends as without a stream, its event showing what was kept", async () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < 3500; i++) deep = { d: deep };
    const fn = desk(() => deep);
    const store = memoryStore();
    const s = fn.conversation("c", { store, lm: scripted(replies()) }).stream({ q: "go" });
    const events: TurnEvent[] = [];
    for await (const e of s) events.push(e);
    expect(await s).toBe("done");
    const event = events.find((e) => e.type === "tool_result" && e.name === "look") as { output?: unknown; error?: string };
    const done = (await store.read("c")).find((r) => r.kind === "tool" && r.name === "look" && r.state === "done") as {
      output?: unknown;
      error?: string;
    };
    // (where this machine's stack lets JSON keep it; else both say it is not JSON)
    expect(event.error ?? JSON.stringify(event.output)).toBe(done.error ?? JSON.stringify(done.output));
  });

  it("a consumer that changes the event's output changes neither the journal nor what the model reads", async () => {
    const fn = desk(() => ({ items: ["kettle"] }));
    const store = memoryStore();
    const lm = scripted(replies());
    const s = fn.conversation("c", { store, lm }).stream({ q: "go" });
    for await (const e of s) if (e.type === "tool_result" && e.name === "look") (e.output as { items: string[] }).items.push("edited");
    await s;
    const done = (await store.read("c")).find((r) => r.kind === "tool" && r.name === "look" && r.state === "done") as { output?: unknown };
    expect(done.output).toEqual({ items: ["kettle"] });
    expect(toolResults(lm.requests[1])[0]![1]).toBe('{"items":["kettle"]}');
  });
});

describe("what a tool showed the person (ctx.show), streamed with its result", () => {
  it("a consumer that edits the event's shown values changes neither the done record nor what a later reader is shown", async () => {
    const look = tool("look", { description: "Look.", input: { id: z.string() }, effects: "reads" }, (_input, ctx) => {
      ctx.show({ step: "looked" });
      return "seen";
    });
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [look] });
    const store = memoryStore();
    const s = fn.conversation("c", { store, lm: scripted([{ toolCalls: [{ name: "look", input: { id: "A" } }] }, "done"]) }).stream({ q: "go" });
    for await (const e of s) if (e.type === "tool_result") (e.shown![0] as { step: string }).step = "edited by a UI";
    await s;
    const done = (await store.read("c")).find((r) => r.kind === "tool" && r.state === "done") as { shown?: unknown[] };
    expect(done.shown).toEqual([{ step: "looked" }]);
  });
});
