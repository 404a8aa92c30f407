/**
 * Hunt 68: what reaches a conversation's turn without being recorded.
 *
 * - A turn handle's options took any key: `turn.deny({ reasn: "not today" })`
 *   denied with no reason (the model was told nothing of why), and
 *   `turn.resume({ result: { 1: "sent" } })` (for `results`) was read as
 *   "nothing said". Refused now (`input-invalid`), before anything is written.
 * - A conversation stream's actor took `actor.send({ type: "APPROVE" })`
 *   straight: the turn went on and ran the payment with no `approval` record
 *   (who said yes is lost, and a resume elsewhere reads the approval as never
 *   answered). A `STOP` sent so while the turn waited ended the stream
 *   `stopped` while its records said `waiting`: a person answering it later
 *   ran the payment the caller was told had stopped. Answers sent to the actor
 *   are refused now (`turn-state`, naming `s.approve` / `s.deny`), and a STOP
 *   is the stream's `abort()`: recorded as a stop.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, Waiting } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { payDesk } from "./fixtures/pay-desk.js";

const codeOf = (e: unknown): unknown => (e as { code?: unknown }).code;
const lmOf = () => scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, (r) => `saw: ${r.messages.at(-1)!.content}`]);

async function waitingTurn() {
  const { d, paid } = payDesk();
  const store = memoryStore();
  const lm = lmOf();
  await expect(d.conversation("c", { store, lm, approve: "changes" }).send("pay 5")).rejects.toBeInstanceOf(Waiting);
  const [turn] = await d.conversation("c", { store, lm }).turns();
  return { d, store, lm, paid, turn: turn! };
}

describe("a turn handle's options with a key that is no option", () => {
  it.each([
    ["deny", { reasn: "not today" }],
    ["approve", { byy: "maria" }],
    ["approve", { ID: "desk#1:1" }],
  ] as const)("%s(%o) is refused (input-invalid); nothing is written, the turn still waits", async (method, options) => {
    const { store, lm, paid, turn } = await waitingTurn();
    const before = (await store.read("c")).length;
    const answered = method === "deny" ? turn.deny(options as never) : turn.approve(options as never);
    expect(await answered.then(() => "taken", codeOf)).toBe("input-invalid");
    expect((await store.read("c")).length).toBe(before);
    expect(turn.state).toBe("waiting");
    expect([paid, lm.requests.length]).toEqual([[], 1]);
  });

  it("resume({ result }) (for results) is refused (input-invalid); nothing is written", async () => {
    const { store, turn } = await waitingTurn();
    const before = (await store.read("c")).length;
    expect(await turn.resume({ result: { 1: "paid 5" } } as never).then(() => "taken", codeOf)).toBe("input-invalid");
    expect(() => turn.stream({ reruns: [1] } as never)).toThrow(expect.objectContaining({ code: "input-invalid" }));
    expect((await store.read("c")).length).toBe(before);
  });
});

/** What sending `command` straight to a stream's actor gives: "taken", or the code it was refused with. */
function sentToActor(s: { actor: { send(command: never): void } }, command: unknown): unknown {
  try {
    s.actor.send(command as never);
    return "taken";
  } catch (error) {
    return codeOf(error);
  }
}

describe("commands sent to a conversation stream's actor", () => {
  it("APPROVE sent to the actor is refused (turn-state): nothing runs unrecorded; s.approve() then records it", async () => {
    const { d, paid } = payDesk();
    const store = memoryStore();
    const s = d.conversation("c", { store, lm: lmOf(), approve: "changes" }).stream("pay 5");
    let refused: unknown;
    for await (const e of s) {
      if (e.type !== "approval") continue;
      refused = sentToActor(s, { type: "APPROVE", by: "eve" });
      expect(s.state).toBe("awaitingApproval");
      await s.approve({ by: "maria" });
    }
    expect(refused).toBe("turn-state");
    expect(await s).toBe("saw: paid 5");
    expect(paid).toEqual([5]);
    expect((await store.read("c")).filter((r) => r.kind === "approval")).toMatchObject([{ verdict: "yes", by: "maria" }]);
  });

  it.each(["DENY", "ABANDON", "RESUME"] as const)(
    "%s sent to the actor while it waits is refused (turn-state); the turn still waits",
    async (type) => {
      const { d, paid } = payDesk();
      const store = memoryStore();
      const s = d.conversation("c", { store, lm: lmOf(), approve: "changes" }).stream("pay 5");
      let refused: unknown;
      for await (const e of s) {
        if (e.type !== "approval") continue;
        refused = sentToActor(s, { type } as never);
      }
      expect(refused).toBe("turn-state");
      await expect(s).rejects.toBeInstanceOf(Waiting);
      const [turn] = await d.conversation("c", { store }).turns();
      expect(turn!.state).toBe("waiting");
      expect(paid).toEqual([]);
    },
  );

  it("STOP sent to the actor while it waits ends the turn stopped in its records; a later approve is refused, pay never runs", async () => {
    const { d, paid } = payDesk();
    const store = memoryStore();
    const lm = lmOf();
    const s = d.conversation("c", { store, lm, approve: "changes" }).stream("pay 5");
    for await (const e of s) if (e.type === "approval") s.actor.send({ type: "STOP", reason: "the customer hung up" });
    expect(await s.then(() => "answered", codeOf)).toBe("turn-aborted");
    const [turn] = await d.conversation("c", { store, lm }).turns();
    expect(turn!.state).toBe("stopped");
    expect(await turn!.approve({ by: "maria" }).then(() => "ran", codeOf)).toBe("turn-state");
    expect(paid).toEqual([]);
    expect(lm.requests).toHaveLength(1);
  });
});
