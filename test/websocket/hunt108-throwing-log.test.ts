/**
 * A server whose `onError` throws (a logger that is down, one that cannot
 * write what it was given). It was called unguarded from inside the server's
 * handlers: at `serve`, a conversation the store cannot read made the first
 * scan throw it, and `serve()` never resolved; a request the store failed was
 * never answered (the log was told before the refusal was sent), and each
 * such throw was a rejection nobody handled, which ends a Node process. The
 * throw is now reported (console.error) and the server goes on, as a
 * companion's listener that throws is.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { connect, serve } from "../../adapters/websocket/index.js";
import { keeper, waitingDesk, withUnreadable } from "./fixtures.js";

const keep = keeper();
afterEach(() => vi.restoreAllMocks());

/** `p` settled within a few seconds, or "never settled" (what hung before). */
const within = (p: PromiseLike<unknown>): Promise<unknown> =>
  Promise.race([
    Promise.resolve(p).then(
      (value) => ({ value }),
      (e: unknown) => e,
    ),
    new Promise((r) => setTimeout(() => r("never settled"), 3000).unref()),
  ]);

describe("an onError that throws", () => {
  it("is reported, and the server goes on: it starts, lists what it can read, and answers a request the store failed", async () => {
    const reported = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const d = await waitingDesk(["sam"]);
    const onError = (): void => {
      throw new Error("the log is down");
    };
    const started = await within(serve({ store: withUnreadable(d.store), programs: [d.served], keys: ["k1"], port: 0, onError }));
    expect(started).toMatchObject({ value: { url: expect.any(String) } });
    const server = keep((started as { value: Awaited<ReturnType<typeof serve>> }).value);
    const app = keep(await connect(server.url, { key: "k1" }));
    expect(await within(app.waiting())).toMatchObject({ value: [{ conversation: "sam", state: "waiting" }] });
    expect(await within(app.status({ conversation: "aaa", turn: "01a24ce5-2bb9-739e-9d2e-b6b0b2c870d6" }))).toMatchObject({ code: "store-corrupt" });
    expect(reported).toHaveBeenCalledWith(expect.stringContaining("onError threw"), expect.objectContaining({ message: "the log is down" }));
  });
});
