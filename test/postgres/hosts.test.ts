/**
 * Many hosts on one real PostgreSQL server: Node processes share a
 * conversation through the Postgres store. Waiting on one host and approved
 * on another; eight hosts racing to resume one turn; a host SIGKILLed in a
 * tool; a host whose connection the server ends. Each test has its own schema.
 */
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { answersFor } from "../durable/fixtures/drive.js";
import { reportReliability } from "../durable/fixtures/reliability.js";
import { removeBundles } from "../durable/fixtures/spawn.js";
import { build, fileLog, World, worldLM, type ProgSpec } from "../durable/fixtures/world.js";
import { DESK, effectsDir, recordsOf, startHost, until, untilRecord } from "./fixtures/hosts.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

afterAll(removeBundles);
const LONG_LEASE = { renewMs: 20_000, ttlMs: 60_000 }; // never runs out in these tests: liveness alone tells

/** What these tests did, for the suite's reliability figures: SIGKILLs sent, changing tool calls run more than once. */
const done = { sigkills: 0, doubleRuns: 0 };
afterAll(() => reportReliability("Postgres hosts", done));
/** Runs of changing tool calls past their first, from the side-effect log (measured before the tests assert it is 0). */
const twice = (effects: string): number => {
  let out = 0;
  for (const [k, n] of fileLog(effects).all()) if (["refund", "notify"].includes(k.split("|")[0]!)) out += Math.max(0, n - 1);
  return out;
};

/** Each changing tool's runs, from the side-effect log. */
const runs = (effects: string): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const [k, n] of fileLog(effects).all()) out[k.split("|")[0]!] = (out[k.split("|")[0]!] ?? 0) + n;
  return out;
};

/** This process as one more host: the conversation, its world and its store. */
function here(schema: string, conversation: string, spec: ProgSpec, effects: string) {
  const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
  const world = new World({ effects: fileLog(effects) });
  const chat = build(spec, world).conversation(conversation, { store, lm: worldLM(world, spec), lease: LONG_LEASE });
  return { store, chat, world };
}

describe.skipIf(NO_SERVER !== null)("many hosts on one PostgreSQL server", () => {
  it("a turn waits for a person on one host and is approved on another: it runs on once", async () => {
    const schema = freshSchema();
    const effects = effectsDir();
    const spec: ProgSpec = { ...DESK, approve: ["refund"] };
    const base = { schema, conversation: "sam", spec, input: "Refund A-1042", effects, lease: LONG_LEASE };
    const first = await (await startHost({ ...base, app: "host-one", action: "send" })).done;
    expect(first.out, first.stderr).toMatchObject({ waiting: ["refund"], state: "waiting" });
    expect(runs(effects)).toEqual({ find: 1 });
    const second = await (await startHost({ ...base, app: "host-two", action: "approve" })).done;
    expect(second.out, second.stderr).toMatchObject({ ok: expect.stringMatching(/^desk:/), violations: [] });
    done.doubleRuns += twice(effects);
    expect(runs(effects)).toEqual({ find: 1, refund: 1, notify: 1 });
    // a third host sees the turn done, approved by the second
    const { store, chat } = here(schema, "sam", spec, effects);
    const turn = (await chat.turns()).at(-1)!;
    expect(turn.state).toBe("done");
    const approval = (await recordsOf(schema, "sam")).find((r) => r["kind"] === "approval");
    expect(approval).toMatchObject({ verdict: "yes", by: expect.stringMatching(/^pid \d+$/) });
    await store.close();
    await dropSchema(schema);
  });

  it("eight hosts race to resume one interrupted turn: exactly one wins, each tool runs once", async () => {
    const schema = freshSchema();
    const effects = effectsDir();
    const base = { schema, conversation: "race", spec: DESK, input: "Refund A-7", effects, lease: LONG_LEASE };
    const sender = await startHost({ ...base, app: "race-sender", action: "send", latencyMs: 400 });
    await untilRecord(schema, "race", "find done", (r) => r["kind"] === "tool" && r["name"] === "find" && r["state"] === "done");
    sender.child.kill("SIGKILL");
    expect((await sender.done).signal).toBe("SIGKILL");
    done.sigkills++;
    const goAt = Date.now() + 4_000; // every racer has opened the conversation by then
    const racers = await Promise.all(Array.from({ length: 8 }, (_, i) => startHost({ ...base, app: `racer-${i}`, action: "resume", goAt })));
    const ends = await Promise.all(racers.map((r) => r.done));
    const outs = ends.map((e) => e.out);
    const won = outs.filter((o) => o && "ok" in o);
    expect(won, JSON.stringify(outs)).toHaveLength(1);
    for (const o of outs) if (o && !("ok" in o)) expect(["turn-claimed", "turn-state", "lease-lost"], JSON.stringify(o)).toContain(o.error);
    for (const o of outs) expect(o?.violations).toEqual([]);
    done.doubleRuns += twice(effects);
    expect(runs(effects)).toEqual({ find: 1, refund: 1, notify: 1 });
    const leases = (await recordsOf(schema, "race")).filter((r) => r["kind"] === "lease").map((r) => r["attempt"]);
    expect(new Set(leases)).toEqual(new Set([1, 2])); // the sender's, then the one winner's
    await dropSchema(schema);
  });

  it("a host SIGKILLed in a changing tool: another host sees the turn interrupted at once (not after the lease), and the person's answer finishes it", async () => {
    const schema = freshSchema();
    const effects = effectsDir();
    const host = await startHost({
      schema,
      app: "doomed",
      conversation: "kill",
      spec: DESK,
      input: "Refund B-9",
      effects,
      action: "send",
      latencyMs: 1_500,
      lease: LONG_LEASE,
    });
    const { store, chat } = here(schema, "kill", DESK, effects);
    await untilRecord(schema, "kill", "refund started", (r) => r["kind"] === "tool" && r["name"] === "refund" && r["state"] === "started");
    expect((await chat.turns()).at(-1)!.state).toBe("running"); // alive: it holds the turn's advisory lock
    host.child.kill("SIGKILL");
    await host.done;
    done.sigkills++;
    // the lease says running for a minute more; the lost lock says interrupted now
    await until("the turn reads interrupted", async () => (await chat.turns()).at(-1)!.state === "interrupted", 1_000);
    const turn = (await chat.turns()).at(-1)!;
    expect(turn.unfinished.map((u) => u.name)).toEqual(["refund"]);
    const answer = await turn.resume(answersFor(turn.unfinished, fileLog(effects)));
    expect(answer).toMatch(/^desk:/);
    done.doubleRuns += twice(effects);
    expect(runs(effects)).toEqual({ find: 1, refund: 1, notify: 1 });
    await store.close();
    await dropSchema(schema);
  });

  it("a host whose connections the server terminates mid-turn stops before its next side effect; another host goes on", async () => {
    const schema = freshSchema();
    const effects = effectsDir();
    const host = await startHost({
      schema,
      app: "cut-off",
      conversation: "cut",
      spec: DESK,
      input: "Refund C-3",
      effects,
      action: "send",
      latencyMs: 6_000,
      lease: LONG_LEASE,
    });
    const { store, chat } = here(schema, "cut", DESK, effects);
    // the host ran its reads tool and asks the model again (6 s): end every connection it has
    // (its record, not its side effect: the record is kept before the paid call, and only then is the cut in the call)
    await untilRecord(schema, "cut", "find done", (r) => r["kind"] === "tool" && r["name"] === "find" && r["state"] === "done");
    // (in the select list, so it runs only on the rows the WHERE kept)
    const ended = await admin<{ ok: boolean }>("SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'cut-off'");
    expect(ended.filter((e) => e.ok).length).toBeGreaterThanOrEqual(1); // its lock's session (and its pool's, if one is open)
    // before its changing tool: not started (else this test shows nothing)
    expect((await recordsOf(schema, "cut")).filter((r) => r["state"] === "started")).toEqual([]);
    await until("the turn reads interrupted", async () => (await chat.turns()).at(-1)!.state === "interrupted", 5_000);
    const answer = await (await chat.turns()).at(-1)!.resume();
    expect(answer).toMatch(/^desk:/);
    const end = await host.done;
    expect(end.out, `${JSON.stringify(end.out)}\n${end.stderr}`).toMatchObject({ error: expect.stringMatching(/^(lease-lost|turn-claimed)$/) });
    done.doubleRuns += twice(effects);
    expect(runs(effects)).toEqual({ find: 1, refund: 1, notify: 1 }); // the reads tool's result was kept before the paid model call: replayed, not run again; each change once
    await store.close();
    await dropSchema(schema);
  });

  it("the server restarts between two steps: the turn goes on, nothing paid or run twice", async () => {
    const schema = freshSchema();
    const effects = effectsDir();
    const host = await startHost({
      schema,
      app: "restart",
      conversation: "boot",
      spec: DESK,
      input: "Refund D-4",
      effects,
      action: "send",
      latencyMs: 1_500,
      lease: LONG_LEASE,
    });
    await untilRecord(schema, "boot", "refund done", (r) => r["kind"] === "tool" && r["name"] === "refund" && r["state"] === "done");
    execFileSync("pg_ctlcluster", ["15", "main", "restart"], { stdio: "ignore" }); // once: it disturbs the server's other users for a second
    const end = await host.done;
    expect(end.out, end.stderr).toMatchObject({ ok: expect.stringMatching(/^desk:/), violations: [], requests: 4 });
    done.doubleRuns += twice(effects);
    expect(runs(effects)).toEqual({ find: 1, refund: 1, notify: 1 });
    const records = await recordsOf(schema, "boot");
    expect(records.filter((r) => r["kind"] === "reply")).toHaveLength(4);
    expect(records.filter((r) => r["kind"] === "lease").map((r) => r["attempt"])).toEqual([1]);
    await dropSchema(schema);
  }, 120_000);
});
