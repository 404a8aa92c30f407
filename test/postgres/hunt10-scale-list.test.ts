/**
 * Hunt 10 (scale): two `serve`s (app servers behind a load balancer) over
 * one PostgreSQL database holding 3,000 conversations (the store lists
 * them in pages), with companions on each: a turn made waiting on another
 * host is pushed to both within a few polls, a turn answered through A
 * leaves B's list as fast, and conversations made while the scans page
 * through the table never take a waiting turn off a pushed list nor leave
 * an ended one on it. Ids at the limit (200 characters, dots, dashes).
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { connect, serve, type WaitingEntry } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import { keeper } from "../websocket/fixtures.js";
import { bigDesk, bulk, DONE, idsOf, LONG_ID } from "./fixtures/hunt10-scale-kit.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

const keep = keeper();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const names = (list: readonly WaitingEntry[] | undefined) => (list ?? []).map((e) => e.conversation).sort();

async function twoServers(pollMs: number) {
  const schema = freshSchema();
  keep({ close: () => dropSchema(schema).then(() => undefined) });
  const writer = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
  await bulk(writer, idsOf("c", 3000));
  const w = bigDesk(40); // the third host, that makes turns wait
  const first = [LONG_ID("a"), LONG_ID("m"), LONG_ID("z")]; // before the first page, after the last
  for (const id of first) await w.waitOn(writer, id);
  const dA = bigDesk(20);
  const dB = bigDesk(20);
  const storeA = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
  const storeB = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
  const sA = keep(await serve({ store: storeA, programs: [dA.served], keys: ["k1"], port: 0, pollMs }));
  const sB = keep(await serve({ store: storeB, programs: [dB.served], keys: ["k1"], port: 0, pollMs }));
  const cA = keep(await connect(sA.url, { key: "k1" }));
  const cB = keep(await connect(sB.url, { key: "k1" }));
  const listsA: WaitingEntry[][] = [];
  const listsB: WaitingEntry[][] = [];
  cA.on("waiting", (l) => listsA.push(l));
  cB.on("waiting", (l) => listsB.push(l));
  return { writer, w, dA, dB, first, cA, cB, listsA, listsB, refunds: () => w.REFUNDS.length + dA.REFUNDS.length + dB.REFUNDS.length };
}

/** Polls `check` every 20 ms; the ms it took (or -1 when it never held within `ms`). */
async function within(check: () => boolean, ms: number): Promise<number> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > ms) return -1;
    await sleep(20);
  }
  return Date.now() - t0;
}

describe.skipIf(NO_SERVER !== null)("two servers over 3,000 conversations (PostgreSQL)", () => {
  it("a turn made waiting on a third host is pushed to companions of both servers within 2 s; approved through A it leaves B's pushed list within 2 s, ran once", async () => {
    const { writer, w, first, cA, cB, listsA, listsB, refunds } = await twoServers(50);
    expect(names(await cA.waiting())).toEqual([...first].sort());
    expect(names(await cB.waiting())).toEqual([...first].sort());
    const fresh = LONG_ID("d-");
    expect(fresh).toHaveLength(200);
    await w.waitOn(writer, fresh);
    expect(await within(() => names(listsA.at(-1)).includes(fresh) && names(listsB.at(-1)).includes(fresh), 2_000)).toBeGreaterThanOrEqual(0);
    const entry = listsB.at(-1)!.find((e) => e.conversation === fresh)!;
    expect(entry).toMatchObject({ state: "waiting", program: "desk", approvals: [expect.objectContaining({ name: "refund" })] });
    const t0 = Date.now();
    expect(await cA.approve({ conversation: fresh, turn: entry.turn, by: "maria" })).toBe(DONE);
    expect(await within(() => !names(listsB.at(-1)).includes(fresh), 2_000), `B still lists it ${Date.now() - t0} ms after`).toBeGreaterThanOrEqual(0);
    expect(names(listsB.at(-1))).toEqual([...first].sort());
    // (A's push is as bounded as B's, not sooner: on a loaded machine it may come after B's)
    expect(await within(() => !names(listsA.at(-1)).includes(fresh), 2_000), `A still lists it ${Date.now() - t0} ms after`).toBeGreaterThanOrEqual(0);
    expect(names(listsA.at(-1))).toEqual([...first].sort());
    expect(refunds()).toBe(1);
  }, 40_000);

  it("conversations made while both servers page through the table (1,500 plain ones between the old ids, 8 waiting, 2 answered through B): no pushed list ever lacks a waiting turn, and both end exactly right", async () => {
    const { writer, w, first, cA, cB, listsA, listsB, refunds } = await twoServers(20);
    const made: string[] = [];
    // ids that sort between the existing ones, so that they land in pages already read and pages not yet read
    const plain = Array.from({ length: 1500 }, (_, i) => `c${String(i * 2).padStart(5, "0")}.${i % 7}-new`);
    const making = (async () => {
      for (let i = 0; i < plain.length; i += 100) {
        await bulk(writer, plain.slice(i, i + 100), 100);
        if (i % 200 === 0) {
          const id = i % 400 === 0 ? LONG_ID(`c${String(i).padStart(5, "0")}`) : `c${String(i + 1).padStart(5, "0")}-w.${i}`;
          await w.waitOn(writer, id);
          made.push(id);
        }
        await sleep(5);
      }
    })();
    // meanwhile, two of the first waiting turns are approved through B
    const [a0, z0] = [first[0]!, first[2]!];
    const turnOf = async (id: string) => (await cB.waiting()).find((e) => e.conversation === id)!.turn;
    expect(await cB.approve({ conversation: a0, turn: await turnOf(a0), by: "b" })).toBe(DONE);
    expect(await cB.approve({ conversation: z0, turn: await turnOf(z0), by: "b" })).toBe(DONE);
    await making;
    const expected = [first[1]!, ...made].sort();
    expect(made).toHaveLength(8);
    // every list pushed while pages were read held the one turn that waited throughout
    for (const l of [...listsA, ...listsB]) expect(names(l)).toContain(first[1]);
    const right = (l: WaitingEntry[] | undefined) => JSON.stringify(names(l)) === JSON.stringify(expected);
    expect(await within(() => right(listsA.at(-1)) && right(listsB.at(-1)), 3_000), JSON.stringify([names(listsA.at(-1)), names(listsB.at(-1))])).toBeGreaterThanOrEqual(0);
    expect(names(await cA.waiting())).toEqual(expected);
    expect(names(await cB.waiting())).toEqual(expected);
    for (const e of await cA.waiting()) expect(e.state).toBe("waiting");
    // (the store agrees: each listed turn waits, the answered ones are done)
    for (const id of [a0, z0]) expect([...readConversation(await writer.read(id), { now: Date.now() }).turns.values()].map((t) => t.state)).toEqual(["done"]);
    expect((await writer.lengths!()).size).toBe(3000 + 3 + 1500 + 8);
    expect(refunds()).toBe(2);
  }, 60_000);

  // README ("serve over a Postgres store") says each server's waiting list reads every conversation's length "in one
  // statement per 1,000 conversations a poll" (and CHANGELOG says the same of `Store.lengths()`); an operator sizing
  // the load of N app servers counts on it. Before its fix, the store paged by 500 (adapters/postgres/store.ts `PAGE = 500`,
  // used by `pagesOfConversations`): 3,001 conversations take 7 statements, not 4. Either the docs or PAGE is wrong.
  it("lengths() of 3,001 conversations sends at most 4 statements, as README's 'one statement per 1,000 conversations' says", async () => {
    const schema = freshSchema();
    keep({ close: () => dropSchema(schema).then(() => undefined) });
    const writer = keep(postgresStore({ connectionString: SERVER_URL! }, { schema }));
    await bulk(writer, idsOf("c", 3000));
    await writer.append(LONG_ID("z"), [{ functai_conversation: 1, kind: "note", at: "2026-11-29T12:00:00.000Z" }]);
    const pool = new pg.Pool({ connectionString: SERVER_URL!, max: 2 });
    keep({ close: () => pool.end() });
    const texts: string[] = [];
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...a: unknown[]) => unknown;
      (client as { query: unknown }).query = (...a: unknown[]) => (texts.push(typeof a[0] === "string" ? a[0] : String((a[0] as { text?: string }).text)), query(...a));
    });
    const store = keep(postgresStore({ pool }, { schema }));
    expect(await store.length!("c00000")).toBe(1); // (the tables found: what follows is the lengths' statements only)
    texts.length = 0;
    const lengths = await store.lengths!();
    expect(lengths.size).toBe(3001);
    expect(lengths.get(LONG_ID("z"))).toBe(1);
    const pages = texts.filter((t) => t.includes(".conversations WHERE length > 0"));
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.length, `${pages.length} statements`).toBeLessThanOrEqual(4);
  }, 30_000);
});
