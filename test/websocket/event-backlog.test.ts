/**
 * A subscriber whose connection drops is given, once back, the events it
 * missed meanwhile (the server numbers and keeps them: Backlog), each once
 * and only those its key may see; what cannot be given (another server, a
 * restarted one, more than is kept) is said (`missed`), never passed over
 * in silence.
 */
import { describe, expect, it } from "vitest";
import { Backlog } from "../../adapters/websocket/server/backlog.js";
import { connect, serve } from "../../adapters/websocket/index.js";
import type { TurnEvent } from "../../src/index.js";
import { keeper, proxy, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

const event = (seq: number) => ({ type: "text", turn: "t1", seq, at: "2026-12-06T00:00:00.000Z", path: "desk", delta: "x" });

describe("the server's backlog of events", () => {
  it("gives the events after a number, oldest first; past what it keeps, or from another server, says why it cannot", () => {
    const backlog = new Backlog({ events: 3, bytes: 1_000_000 });
    for (let seq = 1; seq <= 5; seq++) expect(backlog.keep("sam", "desk", event(seq), 80)).toBe(seq);
    const since = (n: number, server: string = backlog.server) => backlog.since({ server, n });
    expect(since(2)).toEqual({ events: [3, 4, 5].map((n) => expect.objectContaining({ n, conversation: "sam", event: event(n) })) });
    expect(since(5)).toEqual({ events: [] });
    expect(since(1)).toEqual({ missed: "too-far-behind" }); // 2 is no longer kept
    expect(since(3, "another-server")).toEqual({ missed: "server-changed" });
    expect(since(6)).toEqual({ missed: "server-changed" }); // a number it never gave
  });

  it("keeps no more bytes than it may (the newest event always), and stays right as it drops thousands", () => {
    const backlog = new Backlog({ events: 10, bytes: 250 });
    for (let seq = 1; seq <= 5000; seq++) backlog.keep("sam", null, event(seq), 100);
    const kept = backlog.since({ server: backlog.server, n: 4998 });
    expect(kept).toEqual({ events: [expect.objectContaining({ n: 4999 }), expect.objectContaining({ n: 5000 })] });
    expect(backlog.since({ server: backlog.server, n: 4997 })).toEqual({ missed: "too-far-behind" });
    backlog.keep("sam", null, event(5001), 10_000); // larger than all it may keep: kept alone
    expect(backlog.since({ server: backlog.server, n: 5000 })).toEqual({ events: [expect.objectContaining({ n: 5001 })] });
  });
});

describe("a subscriber back after its network was down", () => {
  it("is given the events it missed, each once, and only of conversations its key may see", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const d = await waitingDesk(["sam", "ana"], { gate });
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, keys: ["all", { key: "sam-only", conversations: ["sam"] }] }));
    const net = keep(await proxy(server.port));
    const watcher = keep(await connect(net.url, { key: "sam-only", maxDelayMs: 50 }));
    const seen: { conversation: string; event: TurnEvent }[] = [];
    watcher.on("event", (e) => seen.push(e));
    const missed: unknown[] = [];
    watcher.on("missed", (e) => missed.push(e));
    await watcher.waiting(); // (the subscribe went first)
    const app = keep(await connect(server.url, { key: "all" }));
    const waiting = await app.waiting();
    const turnOf = (c: string) => waiting.find((w) => w.conversation === c)!.turn;
    const sam = app.approve({ conversation: "sam", turn: turnOf("sam"), by: "maria" });
    await until(() => seen.some((e) => e.event.type === "tool_call"));
    net.down(); // from here on the watcher hears nothing live
    const ana = app.approve({ conversation: "ana", turn: turnOf("ana"), by: "maria" });
    release();
    expect(await sam).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(await ana).toBe("The last tool said: refunded 39.00 for A-1042");
    const before = seen.length;
    expect(seen.map((e) => e.event.type)).not.toContain("done");
    net.up();
    await until(() => seen.some((e) => e.event.type === "done"));
    await new Promise((r) => setTimeout(r, 200)); // (anything else would come now)
    expect(seen.length).toBeGreaterThan(before);
    expect(seen.every((e) => e.conversation === "sam")).toBe(true); // ana's were never this key's
    const seqs = seen.map((e) => e.event.seq).filter((seq) => seq > 0);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i)); // none lost, none twice
    expect(missed).toEqual([]);
  }, 20_000);

  it("told by a restarted server that what was sent meanwhile cannot be given (missed: server-changed)", async () => {
    const d = await waitingDesk(["sam"]);
    const first = await serve({ store: d.store, programs: [d.served], port: 0 });
    const port = first.port;
    const watcher = keep(await connect(first.url, { maxDelayMs: 50 }));
    const seen: TurnEvent[] = [];
    watcher.on("event", ({ event }) => seen.push(event));
    const missed: unknown[] = [];
    watcher.on("missed", (e) => missed.push(e));
    let reconnects = 0;
    watcher.on("reconnect", () => reconnects++);
    await watcher.waiting();
    const app = keep(await connect(first.url, { maxDelayMs: 50 }));
    const [w] = await app.waiting();
    expect(await app.approve({ conversation: "sam", turn: w!.turn, by: "maria" })).toContain("refunded");
    await until(() => seen.some((e) => e.type === "done"));
    await first.close();
    keep(await serve({ store: d.store, programs: [d.served], port }));
    await until(() => reconnects === 1 && missed.length === 1, 10_000);
    expect(missed).toEqual([{ reason: "server-changed" }]);
  }, 20_000);
});
