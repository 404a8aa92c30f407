/**
 * A yes recorded while another companion abandons the turn: the abandon
 * gets in between the answer's write and the turn going on, so the turn
 * never runs here (it ended before it could be claimed). The approver's
 * outcome said `failed`, a state the turn never had (its status reads
 * `abandoned`); it says `abandoned`, with the refusal's message.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper } from "./fixtures.js";
import { heldAnswerDesk } from "./fixtures/hunt36-kit.js";

const keep = keeper();

describe("an approve that loses to an abandon of the same turn", () => {
  it("is told the turn is abandoned (not failed), and nothing ran", async () => {
    // companion a's yes is written at once, but a hears of the write only once b abandoned the turn
    const { d, held } = await heldAnswerDesk();
    const server = keep(await serve({ store: held.store, programs: [d.served], port: 0 }));
    const a = keep(await connect(server.url));
    const b = keep(await connect(server.url));
    const [w] = await a.waiting();
    const yes = a.approve({ conversation: "sam", turn: w!.turn, by: "a" });
    await held.reached;
    await b.abandon({ conversation: "sam", turn: w!.turn });
    held.release();
    const outcome = await yes.outcome;
    expect(outcome).toMatchObject({ conversation: "sam", turn: w!.turn, state: "abandoned", error: { code: "turn-state" } });
    expect(outcome.error?.message).toContain("abandoned");
    await expect(Promise.resolve(yes)).rejects.toMatchObject({ code: "turn-state" });
    expect((await a.status({ conversation: "sam", turn: w!.turn })).state).toBe(outcome.state);
    expect(d.REFUNDS).toEqual([]);
  });
});
