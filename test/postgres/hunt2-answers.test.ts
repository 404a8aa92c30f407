/**
 * Hunt, on a real PostgreSQL server: people answering one turn from many
 * hosts at once with different answers, and a keyed send retried from
 * another host while the first host's turn still runs (alive, or stopped
 * with SIGSTOP). Each host is a store of its own (its own pool and lock session).
 */
import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { removeBundles } from "../durable/fixtures/spawn.js";
import { desk, deskLM, lines, paidSteps } from "./fixtures/hunt2-desk.js";
import { cutLockSession, files, recordsOf, startChild, until, untilStopped } from "./fixtures/hunt2.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

afterAll(removeBundles);
const LEASE = { renewMs: 10_000, ttlMs: 30_000 };
const store = (schema: string): PostgresStore => postgresStore({ connectionString: SERVER_URL! }, { schema });
const codeOf = (e: unknown): string | undefined => (e as { code?: string }).code;

describe.skipIf(NO_SERVER !== null)("eight hosts answer one interrupted turn differently at once (PostgreSQL)", () => {
  it("four give the refund's result (each another), four ask for a rerun: exactly one answer stands, the others are refused with a code, the refund runs at most once more", async () => {
    const schema = freshSchema();
    const stores = Array.from({ length: 8 }, () => store(schema));
    try {
      for (let round = 0; round < 3; round++) {
        const f = files();
        const id = `many-${round}`;
        // a host dies in the refund's body (SIGKILL): the turn reads interrupted, the refund unfinished
        const child = await startChild({ schema, app: `dead-${schema}-${round}`, conversation: id, stopAt: "in-tool", stopped: f.stopped, files: f.desk, lease: LEASE });
        await untilStopped(f.stopped, child);
        child.proc.kill("SIGKILL");
        await child.done;
        const chats = stores.map((s) => desk({ paid: f.desk.paid, effects: f.desk.effects }).conversation(id, { store: s, lm: deskLM(f.desk), lease: LEASE }));
        await until("the turn reads interrupted", async () => (await chats[0]!.turns())[0]?.state === "interrupted");
        const turns = await Promise.all(chats.map(async (c) => (await c.turns())[0]!));
        const invocation = turns[0]!.unfinished[0]!.invocation;
        const paidBefore = lines(f.desk.paid).length;
        const ends = await Promise.allSettled(
          turns.map((t, i) => (i % 2 === 0 ? t.resume({ results: { [invocation]: `refunded by hand (${i})` } }) : t.resume({ rerun: [invocation] }))),
        );
        const won = ends.filter((e) => e.status === "fulfilled");
        expect(won, JSON.stringify(ends.map((e) => (e.status === "rejected" ? `${codeOf(e.reason)}: ${String(e.reason)}` : e.value)))).toHaveLength(1);
        for (const e of ends) if (e.status === "rejected") expect(codeOf(e.reason), String(e.reason)).toMatch(/^(turn-claimed|turn-state)$/);
        const records = await recordsOf(schema, id);
        const answers = records.filter((r) => r["kind"] === "tool" && (r["state"] === "given" || r["state"] === "rerun"));
        expect(answers).toHaveLength(1);
        const refunds = lines(f.desk.effects).filter((l) => l === "refund").length;
        expect(refunds).toBe(answers[0]!["state"] === "rerun" ? 2 : 1); // the dead host's, and a rerun if that is the answer kept
        expect(lines(f.desk.paid).slice(paidBefore)).toEqual(["step2"]); // one answer paid, once
        expect(records.filter((r) => r["kind"] === "ended")).toHaveLength(1);
        // the turn's answer is the one that stands: what the model was shown is that one's output
        const [final] = await chats[0]!.turns();
        expect(final!.state).toBe("done");
        if (answers[0]!["state"] === "given") {
          const i = ends.findIndex((e) => e.status === "fulfilled");
          expect(answers[0]!["output"]).toBe(`refunded by hand (${i})`);
        }
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await dropSchema(schema);
    }
  }, 60_000);
});

describe.skipIf(NO_SERVER !== null)("a keyed send retried from another host while the first host's turn runs (PostgreSQL)", () => {
  it("the first host alive (its refund awaits): the retry waits for that turn and answers with it; one turn, nothing paid or run twice", async () => {
    const schema = freshSchema();
    const f = files();
    const here = store(schema);
    const child = await startChild({ schema, app: `keyed-${schema}`, conversation: "k", stopAt: "none", stopped: f.stopped, files: f.desk, lease: LEASE, key: "req-1" });
    try {
      await until("the first host's refund runs", () => lines(f.desk.effects).includes("refund"));
      const chat = desk({ paid: f.desk.paid, effects: f.desk.effects }).conversation("k", { store: here, lm: deskLM(f.desk), lease: LEASE });
      let settled: string | null = null;
      const retry = chat.send({ request: "Refund A-1." }, { key: "req-1" });
      retry.then(
        (v) => (settled = `answered ${String(v)}`),
        (e: unknown) => (settled = `${codeOf(e)}: ${String(e)}`),
      );
      // it waits (the turn is running): give it time to do something wrong, as the paid log and the records say
      await until("the retry has looked a few times", async () => (await recordsOf(schema, "k")).length > 0 && lines(f.desk.paid).length >= 2);
      await new Promise((r) => setTimeout(r, 600));
      expect(settled).toBe(null);
      expect(paidSteps(f.desk)).toEqual({ step0: 1, step1: 1 });
      writeFileSync(f.desk.waitFor, "");
      expect(await retry).toBe("Refunded.");
      expect((await child.done).out).toMatchObject({ ok: "Refunded." });
      expect(paidSteps(f.desk)).toEqual({ step0: 1, step1: 1, step2: 1 });
      expect(lines(f.desk.effects)).toEqual(["refund", "finished"]);
      expect((await chat.turns()).map((t) => t.state)).toEqual(["done"]);
    } finally {
      child.proc.kill("SIGKILL");
      await here.close();
      await dropSchema(schema);
    }
  });

  it("the first host stopped (SIGSTOP) in its refund: the retry waits while its lock stands; once its lock session is ended, the retry is told the refund is unfinished (turn-unfinished); nothing paid or run again", async () => {
    const schema = freshSchema();
    const f = files();
    const here = store(schema);
    const app = `keyed-stop-${schema}`;
    const child = await startChild({ schema, app, conversation: "k", stopAt: "in-tool", stopped: f.stopped, files: f.desk, lease: LEASE, key: "req-1" });
    try {
      await untilStopped(f.stopped, child);
      const chat = desk({ paid: f.desk.paid, effects: f.desk.effects }).conversation("k", { store: here, lm: deskLM(f.desk), lease: LEASE });
      let settled = false;
      const retry = chat.send({ request: "Refund A-1." }, { key: "req-1" }).finally(() => (settled = true));
      retry.catch(() => undefined);
      await new Promise((r) => setTimeout(r, 800));
      expect(settled).toBe(false); // stalled but alive (its lock stands): running, the retry waits
      const [running] = await chat.turns();
      expect(running!.state).toBe("running");
      expect((await cutLockSession(app)).filter((r) => r.ok)).toHaveLength(1);
      await expect(retry).rejects.toMatchObject({ code: "turn-unfinished" });
      expect(paidSteps(f.desk)).toEqual({ step0: 1, step1: 1 });
      expect(lines(f.desk.effects)).toEqual(["refund"]);
      expect((await chat.turns()).map((t) => t.state)).toEqual(["interrupted"]);
    } finally {
      child.proc.kill("SIGKILL");
      await here.close();
      await dropSchema(schema);
    }
  });
});
