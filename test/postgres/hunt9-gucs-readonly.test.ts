/**
 * `default_transaction_read_only = on` on the store's role (a read-only role,
 * a replica's settings copied to a primary): every write is refused by the
 * server. The store must say so (store-io naming it), at once, and never
 * answer a wait as a timeout or a read as something else.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { rec } from "../store/contract.js";
import { outcome, perTest } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER, freshSchema } from "./server.js";

const { playground, open } = perTest();

/** Settles `p` and how long it took. */
async function timed(p: Promise<unknown>): Promise<Awaited<ReturnType<typeof outcome>> & { ms: number }> {
  const t0 = Date.now();
  const got = await outcome(p);
  return { ...got, ms: Date.now() - t0 };
}

describe.skipIf(NO_SERVER !== null)("postgres store: a read-only role", () => {
  it("first use on a fresh schema: store-io naming the read-only transaction, at once; nothing made", async () => {
    const ground = await playground({ default_transaction_read_only: "on" });
    const schema = freshSchema();
    const got = await timed(open(ground.url, schema).length!("c"));
    expect(got.ok).toBe(false);
    expect(got.code).toBe("store-io");
    expect(got.message).toMatch(/read-only transaction/);
    expect(got.message).toContain(`schema "${schema}"`);
    expect(got.ms).toBeLessThan(5_000);
    expect(await ground.sql("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema])).toEqual([]);
  });

  it("tables made by another role: reads are exact; an append, a wait and a send fail store-io naming it, at once", async () => {
    const ground = await playground({ default_transaction_read_only: "on" });
    const schema = freshSchema();
    const writer = open(ground.adminUrl, schema);
    await writer.append("c", [rec("note", { text: "kept" })]);
    await ground.sql(`GRANT USAGE ON SCHEMA "${schema}" TO ${ground.role}`);
    await ground.sql(`GRANT ALL ON ALL TABLES IN SCHEMA "${schema}" TO ${ground.role}`);
    const store = open(ground.url, schema);
    expect((await store.read("c")).map((r) => (r as { text?: string }).text)).toEqual(["kept"]);
    expect(await store.length!("c")).toBe(1);
    expect(await store.list?.()).toEqual(["c"]);

    const append = await timed(store.append("c", [rec()], { expect: 1 }));
    expect(append).toMatchObject({ ok: false, code: "store-io", message: expect.stringMatching(/read-only transaction/) });
    expect(append.ms).toBeLessThan(5_000);
    expect(await writer.length!("c")).toBe(1);

    // a wait says where it waits (a row): refused, it fails, never a false after its timeout
    const wait = await timed(store.wait?.("c", 1, 15_000) ?? Promise.reject(new Error("no wait")));
    expect(wait).toMatchObject({ ok: false, code: "store-io", message: expect.stringMatching(/read-only transaction/) });
    expect(wait.ms).toBeLessThan(5_000);

    const answer = ai("answer", { description: "Answers.", input: { q: z.string() } });
    const send = await timed(answer.conversation("kim", { store, lm: scripted([{ text: "x" }]) }).send({ q: "?" }));
    expect(send).toMatchObject({ ok: false, code: "store-io", message: expect.stringMatching(/read-only transaction/) });
    expect(send.ms).toBeLessThan(5_000);
    expect(await writer.length!("kim")).toBe(0);
  });
});
