/**
 * A request that fails in a way the server does not explain to the
 * companion (`remote-internal`: "see its log"; a store's failure: its code
 * only) is told to the server's `onError`, whichever request it was: before,
 * only the turn-running ones (approve, deny, resume, abandon, call) were, and
 * a `status` or a request about a turn whose records could not be read left
 * the log empty while the reply pointed to it.
 */
import { describe, expect, it } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { FunctaiError } from "../../src/index.js";
import type { Store } from "../../src/store/types.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

/** `store`, whose reads fail with `failure()` while `broken` is set. */
function breakable(store: Store, failure: () => Error) {
  const state = { broken: false };
  const wrapped: Store = { ...store, read: async (id, after) => (state.broken ? Promise.reject(failure()) : store.read(id, after)) };
  delete (wrapped as { scan?: unknown }).scan; // (every read goes through `read`)
  return { store: wrapped, state };
}

describe("a request the server cannot do, for a reason it does not send", () => {
  it.each([
    ["a bug (a plain Error)", () => new Error("disk gone at /srv/secret/desk"), "remote-internal"],
    ["the store's failure", () => new FunctaiError("store-io", "cannot read /srv/secret/desk/sam.jsonl"), "store-io"],
  ])("%s: the companion gets its code only, the server's onError gets the error (status, and a turn not listed)", async (_, failure, code) => {
    const d = await waitingDesk(["sam"]);
    const b = breakable(d.store, failure);
    const told: unknown[] = [];
    const server = keep(
      await serve({
        store: b.store,
        programs: [d.served],
        port: 0,
        pollMs: 60_000,
        onError: (m, e) => void (m.startsWith("the waiting list") || told.push(e)),
      }),
    );
    const app = keep(await connect(server.url));
    const [sam] = await app.waiting();
    b.state.broken = true;

    const status = app.status({ conversation: "sam", turn: sam!.turn }); // sam's turn is listed: status reads its records
    await expect(status).rejects.toMatchObject({ code });
    await expect(status).rejects.toMatchObject({ message: expect.not.stringContaining("secret") });
    expect(told).toHaveLength(1);
    expect(String((told[0] as Error).message)).toContain("secret");

    // a turn not listed: its program is read from the store before anything else
    const unlisted = app.approve({ conversation: "sam", turn: "01JX0000000000000000000000" });
    await expect(unlisted.outcome).rejects.toMatchObject({ code });
    expect(told).toHaveLength(2);
  });
});
