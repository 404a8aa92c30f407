/**
 * `serve`'s and `connect`'s options, checked before anything starts: a
 * number that would break the server (a timer of 0 or NaN, a limit that is
 * NaN) is refused as settings-invalid, never taken silently.
 */
import { describe, expect, it } from "vitest";
import { Companion, connect, serve, type ServeOptions } from "../../adapters/websocket/index.js";
import { FunctaiError, type Store } from "../../src/index.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("serve's options", () => {
  it("a timer or limit that is 0, negative, NaN or not whole, a port out of range, bad settings, or two programs of one name: settings-invalid, and nothing polls the store", async () => {
    const d = await waitingDesk(["sam"]);
    let lists = 0;
    const counted: Store = { ...d.store, list: () => (lists++, d.store.list!()) };
    const other = d.served.using({}); // another callable, of the same name
    const bad: Partial<ServeOptions>[] = [
      { heartbeatMs: 0 }, { pollMs: Number.NaN }, { helloTimeoutMs: -1 }, { answeredGraceMs: Number.NaN }, { heartbeatMs: 2 ** 31 },
      { maxPending: 0 }, { maxRuns: 1.5 }, { maxConnections: Number.NaN }, { maxPerAddress: -3 }, { maxPayload: 0 },
      { rate: { perSecond: Number.NaN } }, { rate: { perSecond: 0 } }, { rate: { burst: 0 } }, { rate: { strikes: Number.POSITIVE_INFINITY } },
      { settings: { maxSteps: 0 } }, { programs: [d.served, other] }, { programs: undefined as never },
      { port: Number.NaN }, { port: 80.5 }, { port: 70_000 }, { port: -1 }, { port: "8787" as never },
    ];
    for (const options of bad) {
      const e = await serve({ store: counted, programs: [d.served], port: 0, pollMs: 10, ...options }).then((s) => (keep(s), null), (x: unknown) => x);
      expect(e, JSON.stringify(Object.keys(options))).toBeInstanceOf(FunctaiError);
      expect(e).toMatchObject({ code: "settings-invalid" });
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(lists).toBe(0); // refused before it looked at the store
  });

  it("the smallest values that work are taken: a grace of 0, no strikes allowed, one socket without hello", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, answeredGraceMs: 0, maxPending: 1, rate: { strikes: 0 } }));
    const app = keep(await connect(server.url));
    expect((await app.waiting()).map((w) => w.conversation)).toEqual(["sam"]);
  });

  it("a rate given with some keys undefined keeps the defaults for them: the limit still holds", async () => {
    const d = await waitingDesk(["sam"]);
    const rate = { perSecond: undefined, burst: 5, strikes: undefined } as unknown as NonNullable<ServeOptions["rate"]>;
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0, rate }));
    const app = keep(await connect(server.url, { reconnect: false }));
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => app.waiting()));
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => (r.reason as FunctaiError).code);
    expect(refused.length).toBeGreaterThan(0);
    expect(new Set(refused)).toEqual(new Set(["remote-rate-limit"]));
  });
});

describe("connect's options", () => {
  it("a wait that is 0, negative, NaN or past a timer's reach: settings-invalid, before any socket opens", async () => {
    const d = await waitingDesk([]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    for (const options of [{ maxDelayMs: Number.NaN }, { maxDelayMs: -1 }, { timeoutMs: -1 }, { timeoutMs: 0 }, { timeoutMs: 2 ** 31 }, { reconnect: "no" as never }]) {
      const e = await connect(server.url, options).then((app) => (keep(app), null), (x: unknown) => x);
      expect(e, JSON.stringify(options)).toBeInstanceOf(FunctaiError);
      expect(e).toMatchObject({ code: "settings-invalid" });
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(server.connections).toBe(0);
  });
});

describe("a Companion made by hand", () => {
  it("listening for events before open() gets them once open", async () => {
    const d = await waitingDesk(["sam"]);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const watcher = keep(new Companion(server.url, {}));
    const seen: string[] = [];
    watcher.on("event", (e) => seen.push(e.event.type));
    await watcher.open();
    await watcher.waiting(); // (the subscribe, sent before this, is in)
    const app = keep(await connect(server.url));
    const [w] = await app.waiting();
    await app.approve({ conversation: "sam", turn: w!.turn });
    await until(() => seen.includes("done"));
    expect(seen).toEqual(expect.arrayContaining(["tool_call", "tool_result", "done"]));
    expect(seen.filter((type) => type === "done")).toHaveLength(1); // one subscription: each event once, not again at open()
  });
});
