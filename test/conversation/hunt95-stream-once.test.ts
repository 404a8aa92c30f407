/**
 * A conversation's `stream()` refuses a key (its turn is named before the
 * store is read), so the WebSocket server ran keyed calls through `send`:
 * no events, and a close could only stop them. `streamOnce` (internal) is a
 * keyed stream: a new turn with its key recorded as `send` records it, or
 * the turn the key names. Two at once on one key start one turn.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { streamOnce, type KeyedStream } from "../../src/conversation/conversation.js";

function looker() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let looks = 0;
  const look = tool("look", { description: "Look.", input: {}, effects: "reads" }, async () => {
    looks += 1;
    await gate;
    return "shipped";
  });
  const desk = ai("desk", { description: "Answer.", input: { ask: z.string() }, tools: [look] });
  const lm = scripted([{ toolCalls: [{ name: "look", input: {} }] }, "it shipped", "asked again", "and again"]);
  const store = memoryStore();
  return { chat: desk.conversation("c", { store, lm }), lm, release, looks: () => looks };
}

/** The answer a keyed stream gives: its stream's (awaited), or its turn's as it ended. */
const answerOf = async (got: KeyedStream): Promise<unknown> => ("stream" in got ? await got.stream : got.turn.value);

describe("streamOnce: a conversation's keyed stream (internal)", () => {
  it("two at once on one key: one turn is started, the other waits for it and answers as it does", async () => {
    const d = looker();
    d.release();
    const [a, b] = await Promise.all([streamOnce(d.chat, "where is it?", "req-1"), streamOnce(d.chat, "where is it?", "req-1")]);
    expect([a, b].filter((g) => "stream" in g)).toHaveLength(1);
    expect(await Promise.all([answerOf(a!), answerOf(b!)])).toEqual(["it shipped", "it shipped"]);
    expect(await d.chat.turns()).toHaveLength(1);
    expect(d.looks()).toBe(1);
    expect(d.lm.requests).toHaveLength(2);
  });

  it("its turn shows its events, and is found by a send with the same key (its key recorded as send records it)", async () => {
    const d = looker();
    d.release();
    const got = await streamOnce(d.chat, "where is it?", "req-2");
    if (!("stream" in got)) throw new Error("expected a new turn's stream");
    const types: string[] = [];
    for await (const e of got.stream) types.push(e.type);
    expect(types).toEqual(expect.arrayContaining(["tool_call", "tool_result"]));
    expect(await d.chat.send("where is it?", { key: "req-2" })).toBe("it shipped");
    const again = await streamOnce(d.chat, "where is it?", "req-2");
    expect("turn" in again && again.turn.state === "done" && again.turn.value).toBe("it shipped");
    await expect(streamOnce(d.chat, "something else", "req-2")).rejects.toMatchObject({ code: "input-invalid" });
    expect(await d.chat.turns()).toHaveLength(1);
    expect(d.lm.requests).toHaveLength(2);
  });
});
