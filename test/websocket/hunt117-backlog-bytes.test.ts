/**
 * The events a server keeps for subscribers back after a drop are bounded in bytes, as they are sent (UTF-8): text a
 * model writes in CJK takes 3 bytes a character. Counted in characters, a subscriber back after a drop was given at once
 * up to 3 times what the bound intends (and what it leaves under the connection's `maxBuffered`).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { connect, serve } from "../../adapters/websocket/index.js";
import { ai, type TurnEvent } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { keeper, proxy, until } from "./fixtures.js";

const keep = keeper();

/** 2,000 CJK characters: 2,000 UTF-16 code units, 6,000 bytes in UTF-8. */
const CJK = "退款已处理".repeat(400);

describe("the backlog's bound in bytes", () => {
  it("gives a subscriber back after a drop no more bytes of CJK events than it keeps", async () => {
    const store = memoryStore();
    const echo = ai("echo", { description: "Say it back.", input: { message: z.string() } }).using({ lm: scripted([CJK, CJK]) });
    const maxBuffered = 40_000; // the backlog keeps half of it: 20,000 bytes
    const server = keep(await serve({ store, programs: [echo], port: 0, maxBuffered }));
    const net = keep(await proxy(server.port));
    const watcher = keep(await connect(net.url, { maxDelayMs: 50 }));
    const seen: TurnEvent[] = [];
    watcher.on("event", ({ event }) => seen.push(event));
    const missed: unknown[] = [];
    watcher.on("missed", (m) => missed.push(m));
    let reconnects = 0;
    watcher.on("reconnect", () => reconnects++);
    await watcher.waiting(); // (subscribed)
    const app = keep(await connect(server.url));
    net.down(); // the watcher hears nothing live from here on
    // each call's events: some 7,100 UTF-16 code units, some 19,000 bytes (its text, its reply and its done each carry the CJK)
    for (const c of ["c1", "c2"]) await app.call("echo", { message: "Say it." }, { conversation: c });
    expect(seen).toEqual([]);
    net.up();
    await until(() => reconnects === 1);
    await watcher.waiting(); // (its subscribe, sent first on the reconnect, was answered: what it was given came first)
    const given = seen.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)), 0);
    expect(given).toBeLessThanOrEqual(maxBuffered / 2);
    expect(missed).toEqual([{ reason: "too-far-behind" }]); // more than it keeps came meanwhile: said, none given
  }, 20_000);
});
