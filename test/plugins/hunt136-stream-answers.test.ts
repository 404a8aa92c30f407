/**
 * Hunt 136: answers given through a stream in this process (`s.approve`, `s.deny`) are handed to the run that goes
 * on without being read from records (`journal.addAnswer`): `toolResult` is told `refused` once there too, by the
 * run that acts on it, and not again by a later run of the same stream that replays it (a guard: this passed).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, type LMRequest, type Plugin, type PluginToolResult, type TurnStream } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

function watcher() {
  const results: PluginToolResult[] = [];
  const plugin: Plugin = { name: "watcher", version: "1", hooks: { toolResult: (r) => void results.push(r) } };
  return { plugin, results };
}

/** A desk whose model refunds 5, then 6 (each a changing call a person is asked about), then says "Done.". */
function twoRefunds() {
  const refund = tool("refund", { description: "Refund.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => `sent ${amount}`);
  const desk = ai("desk", { description: "Refunds.", input: { m: z.string() }, tools: [refund] });
  const reply = (r: LMRequest) => {
    const seen = r.messages.filter((m) => m.role === "tool").length;
    return seen < 2 ? { toolCalls: [{ name: "refund", input: { amount: 5 + seen } }] } : "Done.";
  };
  return { desk, lm: () => scripted(Array.from({ length: 6 }, () => reply)) };
}

/** Reads the stream to its end: the first approval it shows is refused, the next approved. */
async function denyThenApprove(s: TurnStream<unknown>): Promise<unknown> {
  let asked = 0;
  for await (const e of s) if (e.type === "approval") void (asked++ === 0 ? s.deny("not today", { by: "maria" }) : s.approve({ by: "maria" }));
  return s;
}

const refusal = "The person did not allow this call. Reason: not today";
const expected = [
  { output: refusal, refused: { by: "maria", reason: "not today" }, approved: null },
  { output: "sent 6", refused: undefined, approved: { by: "maria" } },
];
const told = (w: ReturnType<typeof watcher>) => w.results.map(({ output, refused, approved }) => ({ output, refused, approved }));

describe("answers given through a stream", () => {
  it("a stream with no store: the refusal is told once, by the run after it", async () => {
    const { desk, lm } = twoRefunds();
    const w = watcher();
    expect(await denyThenApprove(desk.using({ approve: "changes", lm: lm(), plugins: [w.plugin] }).stream({ m: "Refund me." }))).toBe("Done.");
    expect(told(w)).toEqual(expected);
  });

  it("a conversation's stream: the same", async () => {
    const { desk, lm } = twoRefunds();
    const w = watcher();
    const chat = desk.conversation("sam", { store: memoryStore(), lm: lm(), approve: "changes", plugins: [w.plugin] });
    expect(await denyThenApprove(chat.stream("Refund me."))).toBe("Done.");
    expect(told(w)).toEqual(expected);
  });
});
