/**
 * Hunt 56: a changing tool is never run on a lease lost meanwhile (engine/tool-calls.ts asks for the lease again
 * after its `started` record, the longest wait before the side effect). A `toolRun` hook may wait too before it
 * lets the tool run (it fetches a token, it opens a trace exporter's connection): a run that lost its lease there,
 * while another process took the turn and a person had the tool rerun, ran the payment a second time. The lease
 * is asked for again when a hook lets the tool run.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, tool, type Plugin } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import { anotherHost } from "../fixtures/another-host.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const isKind = (r: object, kind: string): boolean => (r as { kind?: string }).kind === kind;

describe("toolRun and the lease", () => {
  it("a run whose lease was lost while its toolRun hook waited does not run the changing tool", async () => {
    const inner = memoryStore();
    // run A's lease renewals held up past the lease's time (a stalled disk): another handle finds the turn interrupted
    const stalled = faultyStore(anotherHost(inner), {
      delayMs: (c) => (c?.records.some((r) => isKind(r, "lease")) && !c.records.some((r) => isKind(r, "turn")) ? 600 : 0),
    });
    const paid: string[] = [];
    const pay = tool("pay", { description: "Pay.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
      paid.push(`paid ${amount}`);
      return { paid: amount };
    });
    const desk = ai("desk", { description: "Desk.", input: { message: z.string() }, tools: [pay] });
    const lm = () =>
      scripted(
        Array.from(
          { length: 4 },
          () => (r: { messages: { role: string }[] }) =>
            r.messages.some((m) => m.role === "tool") ? "Paid." : { toolCalls: [{ name: "pay", input: { amount: 39 } }] },
        ),
      );
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held = 0;
    // A's hook waits (a token fetched slowly); B's goes straight on
    const slow = {
      name: "slow",
      version: "1",
      hooks: { toolRun: async (_c: unknown, run: () => Promise<unknown>) => (held++ === 0 && (await released), run()) },
    } as unknown as Plugin;
    const lease = { renewMs: 50, ttlMs: 150 };
    const sentA = desk
      .conversation("lease", { store: stalled, lm: lm(), lease, plugins: [slow] })
      .send("Pay 39.")
      .catch((e: unknown) => e);
    const chatB = desk.conversation("lease", { store: inner, lm: lm(), lease, plugins: [slow] });
    let turn = (await chatB.turns())[0];
    for (let i = 0; i < 100 && !(turn?.state === "interrupted" && held === 1); i++) {
      await sleep(20);
      turn = (await chatB.turns())[0];
    }
    expect(turn!.state).toBe("interrupted");
    // a person: it did not run (it had not); run it again
    expect(await turn!.resume({ rerun: [1] })).toBe("Paid.");
    expect(paid).toEqual(["paid 39"]);
    release();
    expect(await sentA).toMatchObject({ code: "lease-lost" });
    await sleep(50);
    expect(paid).toEqual(["paid 39"]);
  }, 20_000);
});
