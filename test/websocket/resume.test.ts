import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { recordAnswerOf, streamOn } from "../../src/conversation/internal.js";
import { crashedDesk, keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("resuming an interrupted turn from a companion", () => {
  it("is listed with its unfinished tools; resume refuses until each has a result or a rerun; a result given is not run again", async () => {
    const d = await crashedDesk(["sam", "ana"]);
    expect(d.REFUNDS).toHaveLength(2); // each crashed turn's refund did run
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, pollMs: 20 }));
    const app = keep(await connect(server.url));
    await until(async () => (await app.waiting()).length === 2);
    const [ana, sam] = await app.waiting();
    expect(sam).toMatchObject({ conversation: "sam", state: "interrupted", approvals: [] });
    expect(sam!.unfinished.map((u) => [u.invocation, u.name, u.input])).toEqual([[2, "refund", { order_id: "A-1042", amount: 39 }]]);

    await expect(app.resume({ conversation: "sam", turn: sam!.turn })).rejects.toMatchObject({ code: "turn-unfinished" });
    // it did run: this is what it returned
    expect(await app.resume({ conversation: "sam", turn: sam!.turn, results: { 2: "refunded 39.00 for A-1042" } })).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toHaveLength(2);
    // it did not: run it again — under the server's rule (approve: "changes") the rerun asks a person first
    const rerun = await Promise.resolve(app.resume({ conversation: "ana", turn: ana!.turn, rerun: [2] })).catch((e: unknown) => e);
    expect(rerun).toMatchObject({ code: "turn-waiting" });
    expect((rerun as { approvals: { name: string }[] }).approvals.map((a) => a.name)).toEqual(["refund"]);
    expect(d.REFUNDS).toHaveLength(2);
    expect(await app.approve({ conversation: "ana", turn: ana!.turn })).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toHaveLength(3);
    expect(await app.waiting()).toEqual([]);
  });

  it("abandon ends it without going on", async () => {
    const d = await crashedDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, pollMs: 20 }));
    const app = keep(await connect(server.url));
    await until(async () => (await app.waiting()).length === 1);
    const [sam] = await app.waiting();
    await app.abandon({ conversation: "sam", turn: sam!.turn });
    expect((await app.status({ conversation: "sam", turn: sam!.turn })).state).toBe("abandoned");
    expect(await app.waiting()).toEqual([]);
    expect(d.REFUNDS).toHaveLength(1);
  });
});

describe("a turn answered but never run on (its answerer died in between)", () => {
  it("is listed for a resume once the grace passed, and resume goes on with the recorded answer", async () => {
    const d = await waitingDesk(["sam"]);
    const turn = (await d.served.conversation("sam", { store: d.store }).turns()).at(-1)!;
    await recordAnswerOf(turn, { verdict: "yes", by: "maria", reason: null }); // answered, then the process "died" before going on
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, pollMs: 20, answeredGraceMs: 1500 }));
    const app = keep(await connect(server.url));
    expect(await app.waiting()).toEqual([]); // within the grace (1.5 s: a loaded machine is slow to ask), whoever answered may still be going on
    await until(async () => (await app.waiting()).length === 1);
    expect((await app.waiting())[0]).toMatchObject({ conversation: "sam", turn: turn.id, state: "interrupted", approvals: [], unfinished: [] });
    const s = app.resume({ conversation: "sam", turn: turn.id });
    const types: string[] = [];
    for await (const e of s) types.push(e.type);
    expect(types).toEqual(expect.arrayContaining(["tool_call", "tool_result", "done"])); // nothing unfinished: its events stream
    expect(await s).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toHaveLength(1);
  });

  it("the server's way inside a turn handle refuses anything else, before it reads or writes", async () => {
    const lookalike = { id: "01JX0000000000000000000000" };
    expect(() => streamOn(lookalike)).toThrow(new TypeError("not a conversation turn handle"));
    await expect(recordAnswerOf(lookalike, { verdict: "yes", by: "maria", reason: null })).rejects.toThrow("not a conversation turn handle");
  });
});
