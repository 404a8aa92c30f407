/**
 * Hunt 137: the IndexedDB store when the origin's storage quota runs out, for real. Chromium's DevTools Protocol
 * (`Storage.overrideQuotaForOrigin`, through vitest's `cdp()`) gives this origin a quota a little past what it
 * uses, and the page fills it (`fillUp`) until the browser itself refuses an append (it aborts the transaction
 * with QuotaExceededError at commit); `quotaRestored` lifts the override.
 *
 * Each test runs in a storage bucket of its own (`navigator.storageBuckets`, whose `indexedDB` stands in for the
 * page's while the test runs): Chromium's IndexedDB keeps the space it last found left in a bucket for up to 30 s
 * (bucket_context.h, kBucketSpaceCacheTimeLimit), so in a bucket already written a quota lowered later is not seen
 * for that long; a new bucket asks the quota manager at its first write.
 * Records are padded with random text (IndexedDB compresses what repeats) and each stays under 64 KiB, past
 * which Chromium keeps a value as a blob file of its own.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cdp } from "vitest/browser";
import { z } from "zod";
import { indexedDBStore } from "../../adapters/indexeddb/index.js";
import { ai, isFunctaiError, tool, type Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const send = (method: string, params: object): Promise<unknown> =>
  (cdp() as { send(method: string, params: object): Promise<unknown> }).send(method, params);

/** The browser's own quota again (no override). */
const quotaRestored = (): Promise<unknown> => send("Storage.overrideQuotaForOrigin", { origin: location.origin });

/** `n` characters of random text. */
function randomText(n: number): string {
  const bytes = new Uint8Array(n);
  for (let at = 0; at < n; at += 65_536) crypto.getRandomValues(bytes.subarray(at, at + 65_536)); // (64 KiB a call at most)
  return Array.from(bytes, (b) => (b % 36).toString(36)).join("");
}

const note = (text: string, pad = 0): object => ({
  functai_conversation: 1,
  kind: "note",
  at: "2026-12-07T10:00:00.000Z",
  text,
  ...(pad > 0 ? { pad: randomText(pad) } : {}),
});

const FILLER = 20_000;

/** Whether `e` is a store-io the browser's quota caused (its cause a QuotaExceededError). */
const quotaRefused = (e: unknown): boolean =>
  isFunctaiError(e, "store-io") && ((e as Error).cause as { name?: unknown } | undefined)?.name === "QuotaExceededError";

/** Gives this origin a quota `room` bytes past what it uses now. */
async function quotaLeft(room: number): Promise<void> {
  const { usage = 0 } = await navigator.storage.estimate();
  await send("Storage.overrideQuotaForOrigin", { origin: location.origin, quotaSize: usage + room });
}

/**
 * Appends records of `size` random characters to conversation "filler" of `s` until the browser refuses one for
 * its quota; then, with `brim`, smaller ones down to 20 characters: no record of a turn fits in what is left.
 */
async function fillUp(s: Store, brim = false): Promise<void> {
  for (const size of brim ? [FILLER, 2_000, 200, 20] : [FILLER]) {
    let refused = false;
    for (let i = 0; i < 1_000 && !refused; i++) {
      const e = await s.append("filler", [note(`filler-${size}-${i}`, size)]).then(
        () => undefined,
        (x: unknown) => x,
      );
      if (e !== undefined && !quotaRefused(e)) throw e;
      refused = e !== undefined;
    }
    if (!refused) throw new Error("the browser never refused an append for its quota");
  }
}

/** Records whose text is more than is left once `fillUp` is done (each under 64 KiB: see the top). */
const pastTheQuota = (text: string): object[] => [note(`${text}-1`, 3 * FILLER), note(`${text}-2`, 3 * FILLER)];

const texts = async (s: Store, id: string): Promise<unknown[]> => (await s.read(id)).map((r) => (r as { text?: unknown }).text);
const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => "resolved",
    (e: unknown) => e,
  );

const pageIndexedDB = Object.getOwnPropertyDescriptor(globalThis, "indexedDB");
const stores: Store[] = [];
let bucket: string | undefined;
interface Buckets {
  open(name: string): Promise<{ indexedDB: IDBFactory }>;
  delete(name: string): Promise<void>;
}
const buckets = (): Buckets => (navigator as unknown as { storageBuckets: Buckets }).storageBuckets;

/** A new storage bucket's IndexedDB stands in for the page's (see the top); the origin's quota is 400 KiB past what it uses. */
beforeEach(async () => {
  bucket = `hunt137-${crypto.randomUUID()}`;
  const { indexedDB } = await buckets().open(bucket);
  Object.defineProperty(globalThis, "indexedDB", { value: indexedDB, configurable: true, enumerable: true, writable: true });
  await quotaLeft(400 * 1024);
});
afterEach(async () => {
  await quotaRestored();
  await Promise.all(stores.splice(0).map((s) => s.close?.()));
  Object.defineProperty(globalThis, "indexedDB", pageIndexedDB!);
  if (bucket !== undefined) await buckets().delete(bucket);
});
function open(name: string): Store {
  const s = indexedDBStore(name);
  stores.push(s);
  return s;
}
const freshName = (): string => `functai-hunt137-${crypto.randomUUID()}`;

/** What the store must say when the browser's quota is full: that it is, and what to do. */
const QUOTA_MESSAGE = /storage quota[^.]*full.*(free|delete|clear|persist)/is;

describe("indexedDBStore when the origin's storage quota is full (real Chromium quota)", () => {
  it("an append past the quota: store-io saying the quota is full and what to do; nothing of it kept, the rest reads as it was (a new handle too)", async () => {
    const name = freshName();
    const s = open(name);
    expect(await s.append("sam", [note("a"), note("b")])).toBe(2);
    await fillUp(s);
    const e = await rejection(s.append("sam", pastTheQuota("big"), { expect: 2 }));
    expect(isFunctaiError(e, "store-io"), String(e)).toBe(true);
    expect((e as Error).message).toMatch(QUOTA_MESSAGE);
    expect(await s.length!("sam")).toBe(2);
    expect(await texts(s, "sam")).toEqual(["a", "b"]);
    const other = open(name); // a new tab's store
    expect(await texts(other, "sam")).toEqual(["a", "b"]);
    await quotaRestored();
    expect(await s.append("sam", [note("c")], { expect: 2 })).toBe(3);
    expect(await texts(other, "sam")).toEqual(["a", "b", "c"]);
  });

  it("read, length, list and wait keep working while the quota is full (this handle and a new one)", async () => {
    const name = freshName();
    const s = open(name);
    expect(await s.append("sam", [note("a")])).toBe(1);
    await fillUp(s);
    expect(quotaRefused(await rejection(s.append("sam", pastTheQuota("big"))))).toBe(true);
    for (const h of [s, open(name)]) {
      expect(await texts(h, "sam")).toEqual(["a"]);
      expect(await h.length!("sam")).toBe(1);
      expect((await h.list!()).sort()).toEqual(["filler", "sam"]);
      expect(await h.wait!("sam", 0, 1_000)).toBe(true);
      expect(await h.wait!("sam", 1, 0)).toBe(false);
    }
  });

  it("a turn whose journal write hits the quota fails with that clear error, never success; the quota raised, it resumes and finishes, the refund run once", async () => {
    const s = open(freshName());
    const refunds: string[] = [];
    // the refund takes effect, and meanwhile the origin fills up: its result is more than is left
    const refund = tool("refund", { description: "Refund an order.", input: { order: z.string() }, effects: "changes" }, async ({ order }, ctx) => {
      refunds.push(ctx.idempotencyKey);
      await fillUp(s);
      return `refunded ${order}: ${randomText(3 * FILLER)}`;
    });
    const desk = ai("desk", { description: "Answer refund requests.", input: { request: z.string() }, tools: [refund] });
    const lm = scripted([{ toolCalls: [{ id: "r", name: "refund", input: { order: "A-1" } }] }, "Refunded."]);
    const chat = desk.conversation("sam", { store: s, lm });
    const e = await rejection(chat.send({ request: "Refund A-1." }, { key: "refund-A-1" }));
    expect(isFunctaiError(e, "store-io"), String(e)).toBe(true);
    expect((e as Error).message).toMatch(QUOTA_MESSAGE);
    expect(refunds).toHaveLength(1);
    expect((await chat.turns()).at(-1)!.state).toBe("interrupted");
    await quotaRestored();
    const retried = await rejection(chat.send({ request: "Refund A-1." }, { key: "refund-A-1" }));
    // the refund's result was never kept: a person says what it did
    expect((retried as { code?: string }).code).toBe("turn-unfinished");
    const turn = (await chat.turns()).at(-1)!;
    expect(turn.unfinished.map((u) => u.name)).toEqual(["refund"]);
    expect(await turn.resume({ results: { [turn.unfinished[0]!.invocation]: "refunded A-1" } })).toBe("Refunded.");
    expect(refunds).toHaveLength(1);
    expect((await chat.turns()).at(-1)!.state).toBe("done");
  });
  /** The refund desk: `find_order` reads (and runs `before` first), `refund` changes; `refunds` holds each refund's key. */
  function refundDesk(s: Store, before: () => Promise<void> = async () => {}) {
    const refunds: string[] = [];
    const findOrder = tool("find_order", { description: "An order.", input: { order: z.string() }, effects: "reads" }, async ({ order }) => {
      await before();
      return { order, paid: 39 };
    });
    const refund = tool("refund", { description: "Refund an order.", input: { order: z.string() }, effects: "changes" }, async ({ order }, ctx) => {
      refunds.push(ctx.idempotencyKey);
      return `refunded ${order}`;
    });
    const desk = ai("desk", { description: "Answer refund requests.", input: { request: z.string() }, tools: [findOrder, refund] });
    const lm = () =>
      scripted([
        { toolCalls: [{ id: "f", name: "find_order", input: { order: "A-1" } }] },
        { toolCalls: [{ id: "r", name: "refund", input: { order: "A-1" } }] },
        "Refunded.",
      ]);
    return { refunds, chat: (model = lm()) => desk.conversation("sam", { store: s, lm: model }) };
  }

  it("a turn sent while the quota is full: the send fails with that clear error, nothing runs; raised, the keyed retry runs the refund once", async () => {
    const s = open(freshName());
    const { refunds, chat } = refundDesk(s);
    await fillUp(s, true);
    const e = await rejection(chat().send({ request: "Refund A-1." }, { key: "refund-A-1" }));
    expect(isFunctaiError(e, "store-io"), String(e)).toBe(true);
    expect((e as Error).message).toMatch(QUOTA_MESSAGE);
    expect(refunds).toEqual([]);
    await quotaRestored();
    expect(await chat().send({ request: "Refund A-1." }, { key: "refund-A-1" })).toBe("Refunded.");
    expect(refunds).toHaveLength(1);
    expect((await chat().turns()).map((t) => t.state)).toEqual(["done"]);
  });

  it("the quota fills up before the refund's started record: the refund never runs, the send fails with that clear error; raised, the keyed retry runs it once", async () => {
    const s = open(freshName());
    let filled = false; // (once: the lookup may run again on the retry)
    const { refunds, chat } = refundDesk(s, async () => {
      if (!filled) await fillUp(s, (filled = true));
    });
    const e = await rejection(chat().send({ request: "Refund A-1." }, { key: "refund-A-1" }));
    expect(isFunctaiError(e, "store-io"), String(e)).toBe(true);
    expect((e as Error).message).toMatch(QUOTA_MESSAGE);
    expect(refunds).toEqual([]);
    expect((await chat().turns()).at(-1)!.state).toBe("interrupted");
    await quotaRestored();
    expect(await chat().send({ request: "Refund A-1." }, { key: "refund-A-1" })).toBe("Refunded.");
    expect(refunds).toHaveLength(1);
    expect((await chat().turns()).at(-1)!.state).toBe("done");
  });
});
