/**
 * A `turnEnd` hook that throws on a run that ends resumable (waiting for a person, interrupted, stopped) must not
 * lose that end: before, the hook's `plugin-failed` replaced the turn's `Suspend`, the turn was recorded `failed`
 * and the person's question was gone for good. The lead's rule: the waiting end is kept (its records say it
 * waits, `turns()` lists it waiting, a person's answer runs it as usual) and the call rejects `plugin-failed`
 * naming the plugin, with the hook's error as its cause. A done or failed end was unchanged (hunt 145: a
 * conversation's done end is kept before the hook is told it, and stays done too).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FunctaiError, ai, memoryStore, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { chargeDesk } from "../engine/fixtures.js";

const broken = (when: string): Plugin => ({
  name: "tracer",
  version: "1",
  hooks: {
    turnEnd: (end) => {
      if (end.state === when) throw new Error("span exporter down");
    },
  },
});

describe("a turnEnd hook that throws on a resumable end", () => {
  it("a waiting turn stays waiting: its records, turns(), and a person's yes runs it as usual", async () => {
    const paid: number[] = [];
    const pay = tool("pay", { description: "Pays.", input: { amount: z.number() }, effects: "changes" }, ({ amount }) => {
      paid.push(amount);
      return "paid";
    });
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [pay] });
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "done"]);
    await fn
      .conversation("c1", { store, lm, plugins: [broken("waiting")], approve: "changes" })
      .send("go")
      .catch((e: unknown) => e);
    const turn = (await fn.conversation("c1", { store, lm }).turns()).at(-1)!;
    expect(turn.state).toBe("waiting");
    expect(turn.waiting.map((a) => a.input)).toEqual([{ amount: 5 }]);
    expect(paid).toEqual([]);
    expect(await turn.approve({ by: "maria" })).toBe("done");
    expect(paid).toEqual([5]);
  });

  // the end is kept (above); the plugin's failure, set on the run (`runtime.turnEndFailure`), is what the call
  // rejects with (src/turn/run.ts resultOf, src/conversation/driver.ts resultOrWait)
  it("and the call rejects plugin-failed naming the plugin, the hook's error as its cause", async () => {
    const pay = tool("pay", { description: "Pays.", input: { amount: z.number() }, effects: "changes" }, () => "paid");
    const fn = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [pay] });
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "done"]);
    const err = await fn
      .conversation("c1", { store: memoryStore(), lm, plugins: [broken("waiting")], approve: "changes" })
      .send("go")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FunctaiError);
    expect((err as FunctaiError).code).toBe("plugin-failed");
    expect((err as FunctaiError).message).toContain("tracer");
    expect(((err as FunctaiError).cause as Error).message).toBe("span exporter down");
  });

  it("an interrupted turn (its delegated turn waits for a person) stays interrupted, resumable, not failed", async () => {
    const { desk, lm, charges } = chargeDesk();
    const store = memoryStore();
    const chat = desk.conversation("sam", { store, lm, approve: ["charge"], plugins: [broken("interrupted")] });
    await chat.send("Charge A-1.").catch((e: unknown) => e);
    const [turn] = await desk.conversation("sam", { store, lm }).turns();
    expect(turn!.state).toBe("interrupted");
    expect(charges).toEqual([]);
  });

  it("an interrupted turn's call rejects plugin-failed naming the plugin", async () => {
    const { desk, lm } = chargeDesk();
    const chat = desk.conversation("sam", { store: memoryStore(), lm, approve: ["charge"], plugins: [broken("interrupted")] });
    const err = await chat.send("Charge A-1.").catch((e: unknown) => e);
    expect((err as FunctaiError).code).toBe("plugin-failed");
    expect((err as FunctaiError).message).toContain("tracer");
  });

  // (hunt 145: a conversation's done end is kept before turnEnd is told it, so it stays done; it was recorded failed)
  it("a turn that ends done still rejects plugin-failed, and stays done", async () => {
    const fn = ai("desk", { description: "Help.", input: { q: z.string() } });
    const store = memoryStore();
    const err = await fn
      .conversation("c2", { store, lm: scripted(["hello"]), plugins: [broken("done")] })
      .send("go")
      .catch((e: unknown) => e);
    expect((err as FunctaiError).code).toBe("plugin-failed");
    const turn = (await fn.conversation("c2", { store, lm: scripted([]) }).turns()).at(-1)!;
    expect(turn.state).toBe("done");
  });
});
