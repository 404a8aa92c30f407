/**
 * Big and long, on a real server: a 32 MB record (64 MB works too, in about 12 s here: too slow for a test) and a batch of 10,000
 * records in one append, grouped with small appends of other
 * conversations; a conversation of 50,000 records (read, read(after), scan,
 * length, a turn on it); and how much of a long conversation `scan` takes
 * in at once (counted at a TCP proxy: bytes from the server before its
 * first visit).
 */
import net from "node:net";
import { describe, expect, it } from "vitest";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { scripted } from "../../src/testing/index.js";
import { rec } from "../store/contract.js";
import { CHARGE, LONG_LEASE, desk } from "./fixtures/hunt7-net-desk.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const url = SERVER_URL ?? "";

async function twoStores(run: (store: PostgresStore, other: PostgresStore, schema: string) => Promise<void>, storeUrl = url): Promise<void> {
  const schema = freshSchema();
  const store = postgresStore({ connectionString: storeUrl }, { schema });
  const other = postgresStore({ connectionString: url }, { schema });
  try {
    await run(store, other, schema);
  } finally {
    await other.close();
    await store.close();
    await dropSchema(schema);
  }
}

/** A TCP proxy in front of the server that counts the bytes the server sent through it. */
async function countingProxy(): Promise<{ url: string; fromServer: () => number; close: () => Promise<void> }> {
  const target = new URL(url);
  let bytes = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    upstream.on("data", (d: Buffer) => (bytes += d.length));
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const via = new URL(url);
  via.hostname = "127.0.0.1";
  via.port = String((server.address() as net.AddressInfo).port);
  return {
    url: via.toString(),
    fromServer: () => bytes,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe.skipIf(NO_SERVER !== null)("big and long (real server)", () => {
  it("a 32 MB record and a batch of 10,000 records, each in one append, at once with 40 small appends to other conversations: every append lands whole, at its own length; read back equal by another host", async () => {
    await twoStores(async (store, other) => {
      expect(await store.append("warm", [rec()])).toBe(1);
      const huge = { ...rec("tool"), output: `${"x".repeat(32 * 1024 * 1024 - 100)}é\u2028` };
      const many = Array.from({ length: 10_000 }, (_, i) => rec("r", { i }));
      const small = Array.from({ length: 40 }, (_, i) => store.append(`s${i}`, [rec(), rec()]));
      const [a, b, ...rest] = await Promise.all([store.append("huge", [rec(), huge]), store.append("many", many), ...small]);
      expect([a, b]).toEqual([2, 10_000]);
      expect(rest).toEqual(small.map(() => 2));
      const back = await other.read("huge");
      expect(back.length).toBe(2);
      const output = (back[1] as { output?: string }).output!;
      expect([output.length, output.slice(-2), output === huge.output]).toEqual([huge.output.length, "é\u2028", true]);
      const tail = await other.read("many", 9_990);
      expect(tail.map((r) => (r as { i?: number }).i)).toEqual(Array.from({ length: 10 }, (_, k) => 9_990 + k));
      expect(tail.map((r) => r.seq)).toEqual(Array.from({ length: 10 }, (_, k) => 9_991 + k));
      expect(await other.length!("many")).toBe(10_000);
      // appended again after the big ones: at its place
      expect(await store.append("huge", [rec()], { expect: 2 })).toBe(3);
    });
  }, 40_000);

  it("a conversation of 50,000 records in 250 batches: read, read(after) near the end, scan, length agree; a turn on it runs in bounded time, charging once", async () => {
    await twoStores(async (store, other) => {
      const per = 200;
      const batches = Array.from({ length: 250 }, (_, b) => Array.from({ length: per }, (_, k) => rec("note", { i: b * per + k + 1 })));
      // in order, each at its place (expect)
      for (const [b, batch] of batches.entries()) expect(await other.append("long", batch, { expect: b * per })).toBe((b + 1) * per);
      let t0 = Date.now();
      const all = await store.read("long");
      expect(all.length).toBe(50_000);
      expect(all.every((r, k) => r.seq === k + 1 && (r as { i?: number }).i === k + 1)).toBe(true);
      const near = await store.read("long", 49_997);
      expect(near.map((r) => r.seq)).toEqual([49_998, 49_999, 50_000]);
      expect(await store.read("long", 50_000)).toEqual([]);
      let seen = 0;
      let inOrder = true;
      const end = await store.scan!("long", 0, (r) => {
        if (r.seq !== ++seen) inOrder = false;
      });
      expect([end, seen, inOrder]).toEqual([50_000, 50_000, true]);
      expect(await store.length!("long")).toBe(50_000);
      expect(Date.now() - t0).toBeLessThan(15_000);
      t0 = Date.now();
      const d = desk();
      const answer = await d.fn.conversation("long", { store, lm: scripted([CHARGE, { text: "done" }]), lease: LONG_LEASE }).send({ id: "long" });
      expect(String(answer)).toBe("done");
      expect(d.state.charges).toBe(1);
      expect(Date.now() - t0).toBeLessThan(15_000);
      const turn = (await d.fn.conversation("long", { store: other, lm: scripted([]) }).turns()).at(-1)!;
      expect(turn.state).toBe("done");
    });
  }, 60_000);

  // scan's contract (src/store/types.ts): "keeping none of them (a long
  // conversation is walked in little memory)"; a turn resumed on a long
  // conversation is walked with it. Before its fix, the Postgres store paged by 500 batch
  // ROWS, whatever their size: a conversation of 300 tool outputs of 100 KB,
  // each appended alone, is fetched whole (30 MB) by the first query, before
  // the first visit. Its memory is bounded by 500 × the largest batch, not by
  // anything small: 500 outputs of 1 MB each are half a gigabyte at once.
  it("scan of 300 records of 100 KB (one per batch) takes in less than half of them before its first visit", async () => {
    const via = await countingProxy();
    try {
      await twoStores(async (store, other) => {
        const size = 100 * 1024;
        const record = (i: number) => rec("tool", { i, output: String(i % 10).repeat(size) });
        for (let i = 1; i <= 300; i++) expect(await other.append("outputs", [record(i)], { expect: i - 1 })).toBe(i);
        expect(await store.length!("outputs")).toBe(300); // (connected, tables known)
        const before = via.fromServer();
        let atFirst = -1;
        let seen = 0;
        const end = await store.scan!("outputs", 0, () => {
          if (seen++ === 0) atFirst = via.fromServer() - before;
        });
        const total = via.fromServer() - before;
        expect([end, seen]).toEqual([300, 300]);
        expect(total).toBeGreaterThan(300 * size); // (it did read them all through the proxy)
        expect(atFirst).toBeLessThan((300 * size) / 2);
      }, via.url);
    } finally {
      await via.close();
    }
  }, 40_000);
});
