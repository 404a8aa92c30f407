/**
 * One conversation the store cannot read (its records damaged, a file it
 * may not open) is reported and left out; the waiting list of every other
 * conversation stays live (the scan used to stop at it, so the
 * conversations after it were never listed, nor any change published).
 */
import { describe, expect, it } from "vitest";
import { connect, serve, type WaitingEntry } from "../../adapters/websocket/index.js";
import { memoryStore } from "../../src/testing/index.js";
import { keeper, until, waitingDesk, withUnreadable } from "./fixtures.js";

const keep = keeper();

describe("a conversation the store cannot read", () => {
  it("is reported; the others are listed, and changes to them still reach companions", async () => {
    const store = withUnreadable(memoryStore());
    const d = await waitingDesk(["sam"], { store });
    const errors: string[] = [];
    const server = keep(await serve({ store, programs: [d.served], port: 0, pollMs: 20, onError: (m, e) => errors.push(`${m}: ${(e as Error).message}`) }));
    const app = keep(await connect(server.url));
    let list: WaitingEntry[] = app.last;
    app.on("waiting", (w) => (list = w));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
    await d.served.conversation("tom", { store, approve: "changes" }).send("Order A-1042 never arrived. Refund it, please.").catch(() => undefined);
    await until(() => list.length === 2);
    expect(list.map((w) => w.conversation)).toEqual(["sam", "tom"]);
    expect(errors.some((e) => e.includes("aaa"))).toBe(true);
    expect(errors.length).toBeLessThan(5); // told once, not at every poll: it has not changed since
  });
});
