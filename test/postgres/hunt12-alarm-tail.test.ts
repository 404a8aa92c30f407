/**
 * Hunt 12 (alarm): a running turn's log (a tail log, src/conversation/log.ts `#catchUp`) that finds the conversation
 * shorter than the length it saw kept throws store-corrupt ("records were removed"). These look for false alarms in
 * normal operation: tail logs on two stores racing (Postgres, and two file stores on one folder with a torn last line
 * left by a crash), appends that need not be durable, two hosts sending / approving / resuming at once, and eight
 * resumers racing for a turn whose first host was cut off. Nothing is removed in any of them: no store-corrupt.
 */
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { postgresStore, type PostgresStore } from "../../adapters/postgres/index.js";
import { ConversationLog } from "../../src/conversation/log.js";
import { Waiting } from "../../src/index.js";
import type { Store } from "../../src/store/types.js";
import { rec } from "../store/contract.js";
import { waitingDesk } from "../websocket/fixtures.js";
import { NO_SERVER, SERVER_URL, admin, dropSchema, freshSchema } from "./server.js";

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});
const keep = <T extends { close(): Promise<unknown> }>(x: T): T => (open.push(x), x);

/** A fresh schema (dropped last) and `n` stores on it, named `app-<i>` on the server. */
function hosts(n: number, app = `alarm-${Math.random().toString(36).slice(2, 8)}`): { schema: string; stores: PostgresStore[]; app: string } {
  const schema = freshSchema();
  keep({ close: () => dropSchema(schema) });
  const stores = Array.from({ length: n }, (_, i) =>
    keep(postgresStore({ connectionString: `${SERVER_URL!}?application_name=${app}-${i}` }, { schema })),
  );
  return { schema, stores, app };
}

/** How a promise settled: "ok", Waiting, or the error's code. */
const how = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => "ok",
    (e: unknown) => (e instanceof Waiting ? "waiting" : String((e as { code?: unknown }).code ?? e)),
  );

const USUAL = new Set(["ok", "waiting", "turn-claimed", "turn-state", "store-conflict", "lease-lost", "approval-answered", "conversation-busy"]);

/** `logs` each append `times` records one at a time at once (durable every other one); each one's outcome. */
async function race(logs: ConversationLog[], times: number): Promise<string[]> {
  const one = async (log: ConversationLog, k: number): Promise<string> => {
    for (let i = 0; i < times; i++) {
      const got = await how(
        log.appendIf(() => ({ append: [rec("note", { text: `${k}.${i}` })], value: null }), { durable: (i + k) % 2 === 0, maxTries: 200 }),
      );
      if (got !== "ok") return got;
    }
    return "ok";
  };
  return Promise.all(logs.map((log, k) => one(log, k)));
}

/** Two hosts (`storeA`, `storeB`) send on one conversation at once, then approve and resume each waiting turn at once, 4 rounds. */
async function sendApproveResume(storeA: Store, storeB: Store): Promise<void> {
  const [a, b] = [await waitingDesk([], { store: storeA }), await waitingDesk([], { store: storeB })];
  const seen: string[] = [];
  for (let round = 0; round < 4; round++) {
    const sends = await Promise.all(
      [a, b].map((d) =>
        how(d.served.conversation("c", { store: d.store, approve: "changes" }).send("Order A-1042 never arrived. Refund it, please.")),
      ),
    );
    seen.push(...sends);
    const turns = await a.served.conversation("c", { store: storeA, approve: "changes" }).turns();
    for (const t of turns.filter((x) => x.state === "waiting")) {
      const onA = (await a.served.conversation("c", { store: storeA, approve: "changes" }).turns()).find((x) => x.id === t.id)!;
      const onB = (await b.served.conversation("c", { store: storeB, approve: "changes" }).turns()).find((x) => x.id === t.id)!;
      seen.push(...(await Promise.all([how(onA.approve({ by: "a" })), how(onB.resume({}))])));
    }
  }
  expect(seen.filter((s) => !USUAL.has(s))).toEqual([]);
  expect(seen).toContain("ok");
}

describe.skipIf(NO_SERVER !== null)("tail logs racing: no false store-corrupt (Postgres)", () => {
  it("eight tail logs on two stores of one schema append 6 records each at once (durable and not): all kept, none corrupt", async () => {
    const { stores } = hosts(2);
    await stores[0]!.append("c", [rec("note")]);
    const logs = Array.from({ length: 8 }, (_, k) => new ConversationLog(stores[k % 2]!, "c", undefined, 1));
    const outcomes = await race(logs, 6);
    expect(outcomes).toEqual(Array(8).fill("ok"));
    expect(await stores[1]!.length!("c")).toBe(1 + 8 * 6);
    expect((await stores[0]!.read("c")).map((r) => r.seq)).toEqual(Array.from({ length: 49 }, (_, i) => i + 1));
  }, 20_000);

  it("two hosts send on one conversation at once, then approve and resume each waiting turn at once: only usual outcomes", async () => {
    const { stores } = hosts(2);
    await sendApproveResume(stores[0]!, stores[1]!);
  }, 20_000);

  it("a turn whose host is cut off mid-tool, resumed by eight hosts at once: one reruns it, the others are told the usual codes", async () => {
    const { stores, app } = hosts(9);
    const never = new Promise<void>(() => undefined);
    const first = await waitingDesk(["c"], { store: stores[0]!, gate: never });
    const turn = (await first.served.conversation("c", { store: stores[0]!, approve: "changes" }).turns()).at(-1)!;
    const held = how(turn.approve({ by: "first" }));
    // the refund has started (its record kept) and waits on the gate: the first host is then cut off from the server
    for (let i = 0; i < 200; i++) {
      if ((await stores[1]!.read("c")).some((r) => r.kind === "started")) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [`${app}-0`]);
    const resumers = await Promise.all(stores.slice(1).map((store) => waitingDesk([], { store })));
    const outcomes: string[] = [];
    const end = Date.now() + 15_000; // (the cut-off host's lock and lease take some seconds to be found gone)
    while (Date.now() < end && !outcomes.includes("ok")) {
      const got = await Promise.all(
        resumers.map(async (d) => {
          const t = (await d.served.conversation("c", { store: d.store, approve: "changes" }).turns()).at(-1)!;
          return how(t.resume({ rerun: t.unfinished.map((u) => u.invocation) }));
        }),
      );
      outcomes.push(...got);
      if (!got.includes("ok")) await new Promise((r) => setTimeout(r, 100)); // (the lock may take a moment to go)
    }
    expect(outcomes.filter((s) => !USUAL.has(s))).toEqual([]);
    expect(outcomes.filter((s) => s === "ok")).toHaveLength(1);
    expect(resumers.reduce((n, d) => n + d.REFUNDS.length, 0)).toBe(1);
    void held; // (the cut-off host's call never ends: its tool waits on a gate that never opens)
  }, 20_000);
});

describe("tail logs and a torn last line (two file stores on one folder)", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const folder = () => {
    const d = mkdtempSync(join(tmpdir(), "functai-alarm-"));
    dirs.push(d);
    return d;
  };
  const tear = (dir: string) => appendFileSync(join(dir, "conversations", "c.jsonl"), `${JSON.stringify(rec("note", { seq: 99 })).slice(0, 30)}`);

  it("a torn line, then another store appends (cutting it): the tail log's next append reads that record and lands after it", async () => {
    const dir = folder();
    const [a, b] = [fsStore(dir), fsStore(dir)] as Store[];
    await a!.append("c", [rec("note"), rec("note")]);
    const log = new ConversationLog(a!, "c", undefined, 2);
    tear(dir);
    expect(await b!.append("c", [rec("note")], { expect: 2 })).toBe(3);
    const got = await how(log.appendIf(() => ({ append: [rec("note")], value: null })));
    expect(got).toBe("ok");
    expect(log.length).toBe(4);
    expect((await b!.read("c")).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
  }, 20_000);

  it("two file stores on one folder: sends at once, then an approval and a resume at once: only usual outcomes", async () => {
    const dir = folder();
    await sendApproveResume(fsStore(dir), fsStore(dir));
  }, 20_000);

  it("a tail taken from the length after a torn line, racing another store's appends (durable and not): none corrupt", async () => {
    const dir = folder();
    const [a, b] = [fsStore(dir), fsStore(dir)] as Store[];
    await a!.append("c", [rec("note"), rec("note")]);
    tear(dir);
    const length = await a!.length!("c");
    expect(length).toBe(2);
    const logs = [
      new ConversationLog(a!, "c", undefined, length),
      new ConversationLog(b!, "c", undefined, length),
      new ConversationLog(a!, "c", undefined, length),
    ];
    expect(await race(logs, 8)).toEqual(["ok", "ok", "ok"]);
    expect((await fsStore(dir).read("c")).map((r) => r.seq)).toEqual(Array.from({ length: 26 }, (_, i) => i + 1));
  }, 20_000);
});
