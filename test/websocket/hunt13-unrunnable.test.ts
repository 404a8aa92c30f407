/**
 * A yes given to a server that cannot run the turn on (its program has no
 * model there): in the process, `turn.approve()` refuses it with nothing
 * written (the turn still waits, for a process that can run it). Over the
 * wire the yes was written first, then the run failed: the approval was gone
 * from every companion's list, and the companion was told the turn failed
 * while it read waiting, answered. Found by hunt 13 (failed before):
 * `recordAnswerOf` (src/conversation/internal.ts) now gives `recordAnswer`
 * the check `Turn#answer` gives it (`checkRunnable`: the model and the kept
 * inputs, before anything is written), and the refusal's code is sent.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("a yes to a turn this server cannot run on (no model for its program)", () => {
  it("in the process: refused (lm-missing) with nothing written", async () => {
    const d = await waitingDesk(["sam"]);
    const length = (await d.store.read("sam")).length;
    const turn = (await d.fn.conversation("sam", { store: d.store }).turns()).at(-1)!;
    await expect(turn.approve({ by: "maria" })).rejects.toMatchObject({ code: "lm-missing" });
    expect((await d.store.read("sam")).length).toBe(length);
  });

  it("over the wire: refused (lm-missing) with nothing written; the approval still waits for a server that can run it", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.fn], port: 0 })); // d.fn: the desk without its model
    const app = keep(await connect(server.url));
    const [w] = await app.waiting();
    const length = (await d.store.read("sam")).length;
    await expect(app.approve({ conversation: "sam", turn: w!.turn, by: "maria" }).outcome).rejects.toMatchObject({ code: "lm-missing" });
    expect((await d.store.read("sam")).length).toBe(length);
    expect(readConversation(await d.store.read("sam"), { now: Date.now() }).turns.get(w!.turn)!.answers).toEqual([]);
    expect((await app.waiting()).map((x) => x.turn)).toEqual([w!.turn]);
  });
});
