/**
 * A keyed send retried while its turn waits answers as that turn does:
 * `Waiting` while it waits for a person. A turn whose approvals were all
 * answered (written by a stream or a server whose process then went away
 * before it went on) waits for nobody: the retry goes on with it, as a
 * delegate's retried call does. Before, the retry threw a `Waiting` with no
 * approvals in it, for ever: `e.turn.approve()` was refused
 * (`approval-answered`) and nothing in the error said to `resume()`.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, Waiting } from "../../src/index.js";
import { makeRecord } from "../../src/records/make.js";
import { scripted } from "../../src/testing/index.js";
import { payDesk } from "./fixtures/pay-desk.js";

describe("a keyed send retried once its turn's approvals were answered elsewhere (and nobody went on)", () => {
  it("goes on with the turn: the answer, the tool run once, the first reply not paid again", async () => {
    const { d: desk, paid } = payDesk();
    const store = memoryStore();
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
    const chat = desk.conversation("c", { store, lm, approve: "changes" });
    const waiting = await chat.send("pay 5", { key: "req-1" }).catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);
    // a person's yes, as a stream's or a server's answer writes it, its process gone before the turn went on
    const [a] = (waiting as Waiting).approvals;
    const length = (await store.read("c")).length;
    const yes = {
      turn: (waiting as Waiting).turn.id,
      site: a!.site,
      invocation: a!.invocation,
      plugin: null,
      path: a!.path,
      verdict: "yes",
      by: "maria",
      reason: null,
    };
    await store.append("c", [makeRecord("approval", yes as never, Date.now())], { expect: length });
    const [turn] = await chat.turns();
    expect([turn!.state, turn!.waiting]).toEqual(["waiting", []]);
    const retried = await chat.send("pay 5", { key: "req-1" }).catch((e: unknown) => e);
    expect(retried).toBe("paid");
    expect(paid).toEqual([5]);
    expect(lm.requests).toHaveLength(2);
  });
});
