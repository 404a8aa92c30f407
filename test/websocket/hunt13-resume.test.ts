/**
 * `resume` from a companion on turns in odd states: what it refuses it
 * refuses as a turn handle in the process would (nothing dropped without a
 * word), and a refusal is an error reply, never an outcome that reads as
 * though the turn ran.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { recordAnswerOf } from "../../src/conversation/internal.js";
import { readConversation } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { desk, keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("resume naming a tool call the turn does not have", () => {
  it("a result or a rerun for nothing unfinished is refused (input-invalid), as turn.resume refuses it; nothing is written or run", async () => {
    const d = await waitingDesk(["sam"]);
    const turn = (await d.served.conversation("sam", { store: d.store }).turns()).at(-1)!;
    await recordAnswerOf(turn, { verdict: "yes", by: "maria", reason: null }); // answered; its answerer "died" before going on
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, pollMs: 20, answeredGraceMs: 50 }));
    const app = keep(await connect(server.url));
    await until(async () => (await app.waiting()).length === 1);
    expect((await app.waiting())[0]).toMatchObject({ turn: turn.id, state: "interrupted", unfinished: [] });
    // the same handle in the process refuses it (a typo, another turn's number: dropped while the person believes it said)
    await expect(turn.resume({ results: { 9: "refunded 39.00 for A-1042" } })).rejects.toMatchObject({ code: "input-invalid" });
    const length = (await d.store.read("sam")).length;

    await expect(app.resume({ conversation: "sam", turn: turn.id, results: { 9: "refunded 39.00 for A-1042" } })).rejects.toMatchObject({
      code: "input-invalid",
    });
    await expect(app.resume({ conversation: "sam", turn: turn.id, rerun: [9] })).rejects.toMatchObject({ code: "input-invalid" });
    expect((await d.store.read("sam")).length).toBe(length);
    expect(d.REFUNDS).toEqual([]);
    expect((await app.status({ conversation: "sam", turn: turn.id })).state).toBe("waiting");
    // left as it was: a resume that says nothing goes on with the recorded yes
    expect(await app.resume({ conversation: "sam", turn: turn.id })).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toHaveLength(1);
  });
});

describe("resume of a turn that had failed already", () => {
  it("is refused by an error reply (turn-state): its outcome rejects, as an approve's does, and says nothing ran", async () => {
    const d = desk();
    const served = d.fn.using({ lm: scripted([]) }); // out of replies at once: the turn fails
    const store = (await waitingDesk([])).store;
    await served
      .conversation("sam", { store })
      .send("Refund A-1042.")
      .catch(() => undefined);
    const failed = [...readConversation(await store.read("sam"), { now: Date.now() }).turns.values()][0]!;
    expect(failed.state).toBe("failed");
    const server = keep(await serve({ store, programs: [served], port: 0 }));
    const app = keep(await connect(server.url));
    const ref = { conversation: "sam", turn: failed.id };

    const approve = app.approve(ref);
    await expect(approve.outcome).rejects.toMatchObject({ code: "turn-state" }); // refused: the outcome rejects
    const resume = app.resume(ref);
    // before: resolved { state: "failed", error: turn-state }, as though the resume had run the turn and it failed
    await expect(resume.outcome).rejects.toMatchObject({ code: "turn-state" });
    await expect(resume).rejects.toMatchObject({ code: "turn-state" });
    expect((await app.status(ref)).state).toBe("failed");
  });
});
