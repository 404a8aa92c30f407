/**
 * Hunt: a changing MCP tool (destructiveHint only, no readOnlyHint) while
 * the host process dies (SIGKILL) or pauses (SIGSTOP) inside the MCP call,
 * on the file store and on PostgreSQL, with real processes: the host, its
 * MCP server over stdio (which logs every call it runs), and the test's
 * own process resuming with a server of its own. The call is never sent
 * again on its own; a person's `results` settles it with no new call, a
 * `rerun` sends it exactly once more; a woken host whose turn was taken
 * sends nothing more and writes nothing more.
 */
import { writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { postgresStore } from "../../adapters/postgres/index.js";
import { isFunctaiError, type Store } from "../../src/index.js";
import { until } from "../durable/fixtures/hunt2-children.js";
import { removeBundles } from "../durable/fixtures/spawn.js";
import { cutLockSession, isStopped } from "../postgres/fixtures/hunt2.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "../postgres/server.js";
import { began, callsIn, deskModel, endServers, hereDesk, hostPid, startHost, TRANSFER, world, type World } from "./fixtures/hunt4.js";

afterAll(removeBundles);
const FS_LEASE = { renewMs: 50, ttlMs: 300 };
/** On PostgreSQL only the advisory lock tells who lives: the lease never runs out here. */
const PG_LEASE = { renewMs: 10_000, ttlMs: 30_000 };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Place {
  name: string;
  skip: boolean;
  /** The host's store config, and a store in this process on the same conversations. */
  open(w: World): {
    config: { dir: string } | { pg: { url: string; schema: string; app: string } };
    store: Store & { close?: () => Promise<void> };
    lease: typeof FS_LEASE;
    drop(): Promise<void>;
  };
}

const places: Place[] = [
  {
    name: "file store",
    skip: false,
    open: (w) => ({ config: { dir: w.store }, store: fsStore(w.store), lease: FS_LEASE, drop: async () => undefined }),
  },
  {
    name: "PostgreSQL",
    skip: NO_SERVER !== null,
    open: () => {
      const schema = freshSchema();
      const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
      return {
        config: { pg: { url: SERVER_URL!, schema, app: `hunt4-${schema}` } },
        store,
        lease: PG_LEASE,
        drop: async () => {
          await store.close();
          await dropSchema(schema);
        },
      };
    },
  },
];

const toolRecords = async (store: Store) =>
  ((await store.read("acct")) as unknown as { kind: string; state?: string; name?: string }[])
    .filter((r) => r.kind === "tool")
    .map((r) => `${r.name}:${r.state}`);

describe.each(places)("a changing MCP call in a host that dies inside it ($name)", (place) => {
  for (const answer of ["results", "rerun"] as const) {
    it.skipIf(place.skip)(
      `SIGKILLed while the server runs it: resumed elsewhere it reads interrupted, is never sent again on its own; ${answer} settles it`,
      async () => {
        const w = await world();
        const { config, store, lease, drop } = place.open(w);
        const host = startHost(w, { action: "send", conversation: "acct", first: TRANSFER, lease, ...config });
        try {
          await until("the server runs the transfer", () => began(w.calls, "transfer") === 1);
          host.proc.kill("SIGKILL");
          endServers(w.calls); // its server, left behind, still waits at the gate (it never answered) and holds the host's stderr open
          expect(await host.exited).toBe("SIGKILL");
          writeFileSync(w.gate, "open");

          const here = await hereDesk(w);
          try {
            const lm = deskModel(TRANSFER);
            const chat = here.desk.conversation("acct", { store, lm, lease });
            let turn = (await chat.turns()).at(-1)!;
            await until("the turn reads interrupted", async () => (await turn.refresh(), turn.state === "interrupted"));
            expect(turn.unfinished.map((t) => [t.invocation, t.name, t.input])).toEqual([[1, "transfer", TRANSFER.input]]);
            expect(await toolRecords(store)).toEqual(["transfer:started"]);
            const refused = await turn.resume().catch((e: unknown) => e);
            expect(isFunctaiError(refused, "turn-unfinished")).toBe(true);
            expect(began(w.calls, "transfer")).toBe(1);

            turn = (await chat.turns()).at(-1)!;
            const reply = answer === "results" ? await turn.resume({ results: { 1: "moved 5 from A-1" } }) : await turn.resume({ rerun: [1] });
            expect(reply).toBe("ok: moved 5 from A-1");
            expect(began(w.calls, "transfer")).toBe(answer === "results" ? 1 : 2);
            expect(lm.requests).toHaveLength(1); // the reply that called the transfer came from the journal
            // a person's result is the call's end (given); a rerun starts it again and ends it (done)
            expect(await toolRecords(store)).toEqual(
              answer === "results"
                ? ["transfer:started", "transfer:given"]
                : ["transfer:started", "transfer:rerun", "transfer:started", "transfer:done"],
            );
            if (answer === "rerun") {
              // what the server was sent with each run: the adapter forwards no idempotency key (no _meta), the same for both runs
              const metas = callsIn(w.calls)
                .filter((c) => c.phase === "begin")
                .map((c) => c.meta);
              expect(metas[0]).toEqual(metas[1]);
            }
            await turn.refresh();
            expect(turn.state).toBe("done");
          } finally {
            await here.close();
          }
        } finally {
          host.kill();
          endServers(w.calls);
          await drop();
        }
      },
      60_000,
    );
  }
});

/** A world whose host (in a pid namespace of its own when `foreign`) sends the transfer on a file store; `body` runs with them, the host killed and the servers ended after. */
async function withFsHost(foreign: boolean, body: (w: World, store: Store, host: ReturnType<typeof startHost>) => Promise<void>): Promise<void> {
  const w = await world();
  const store = fsStore(w.store);
  const host = startHost(w, { action: "send", conversation: "acct", first: TRANSFER, lease: FS_LEASE, dir: w.store }, foreign);
  try {
    await body(w, store, host);
  } finally {
    host.kill();
    endServers(w.calls);
  }
}

/**
 * Stops the host (SIGSTOP, same host) inside its transfer, well past its lease; from here its turn reads
 * running and stalled (its holder's pid runs), a rerun is refused, and a person abandons it. The host's pid.
 */
async function stopThenAbandon(w: World, host: ReturnType<typeof startHost>, store: Store): Promise<number> {
  await until("the server runs the transfer", () => began(w.calls, "transfer") === 1);
  const pid = hostPid(host, false);
  process.kill(pid, "SIGSTOP");
  await until("the host is stopped", () => isStopped(pid));
  await sleep(FS_LEASE.ttlMs * 3);
  const here = await hereDesk(w);
  try {
    const [turn] = await here.desk.conversation("acct", { store, lm: deskModel(TRANSFER), lease: FS_LEASE }).turns();
    expect([turn!.state, turn!.stalled]).toEqual(["running", true]);
    await expect(turn!.resume({ rerun: [1] })).rejects.toMatchObject({ code: "turn-state" });
    await turn!.abandon();
  } finally {
    await here.close();
  }
  return pid;
}

/**
 * Wakes a stopped host whose turn another took (SIGCONT): it stops with `error`, having paid one request,
 * writes no record, and the server saw the transfers `begun` begin (its run, and a rerun here if any).
 */
async function wakeWritesNothing(
  w: World,
  host: ReturnType<typeof startHost>,
  pid: number,
  store: Store,
  error: RegExp,
  begun: string[],
): Promise<void> {
  const records = (await store.read("acct")).length;
  process.kill(pid, "SIGCONT");
  const out = await host.line("error");
  expect(out.error).toMatch(error);
  expect(out.requests).toBe(1);
  await host.exited;
  expect((await store.read("acct")).length, "records the woken host wrote").toBe(records);
  expect(
    callsIn(w.calls)
      .filter((c) => c.phase === "begin")
      .map((c) => c.tool),
  ).toEqual(begun);
}

describe("a changing MCP call in a host paused inside it (SIGSTOP), its turn taken, then woken (SIGCONT)", () => {
  it("file store, same host: the stalled turn is abandoned; the server's answer waits in the pipe; woken, the host writes nothing and sends no call", async () => {
    await withFsHost(false, async (w, store, host) => {
      const pid = await stopThenAbandon(w, host, store);
      writeFileSync(w.gate, "open");
      await until("the server answered the stopped host", () => callsIn(w.calls).some((c) => c.tool === "transfer" && c.phase === "end"));
      await wakeWritesNothing(w, host, pid, store, /^(lease-lost|turn-state)$/, ["transfer"]);
    });
  }, 60_000);

  it("file store, same host: the stalled turn is abandoned; woken while the server still runs the call, the host cancels the MCP request (notifications/cancelled) and writes nothing", async () => {
    await withFsHost(false, async (w, store, host) => {
      const pid = await stopThenAbandon(w, host, store);
      const records = (await store.read("acct")).length;
      process.kill(pid, "SIGCONT");
      const out = await host.line("error");
      expect(out.error).toMatch(/^(lease-lost|turn-state)$/);
      await until("the server saw the call cancelled", () => callsIn(w.calls).some((c) => c.tool === "transfer" && c.phase === "cancelled"));
      await host.exited;
      expect((await store.read("acct")).length, "records the woken host wrote").toBe(records);
      expect(callsIn(w.calls).map((c) => `${c.tool}:${c.phase}`)).toEqual(["transfer:begin", "transfer:cancelled"]);
    });
  }, 60_000);

  it("file store, a host in another pid namespace: its lease runs out, the turn is claimed here with a rerun (sent once); woken, the host writes nothing and sends no call", async () => {
    await withFsHost(true, async (w, store, host) => {
      await until("the server runs the transfer", () => began(w.calls, "transfer") === 1);
      const pid = hostPid(host, true);
      process.kill(pid, "SIGSTOP");
      await until("the host is stopped", () => isStopped(pid));
      writeFileSync(w.gate, "open"); // the stopped host's server answers into its pipe; the rerun here passes at once
      const here = await hereDesk(w);
      try {
        const lm = deskModel(TRANSFER);
        const chat = here.desk.conversation("acct", { store, lm, lease: FS_LEASE });
        let turn = (await chat.turns())[0]!;
        await until(
          "the turn reads interrupted (its lease ran out, its holder cannot be looked up)",
          async () => (await turn.refresh(), turn.state === "interrupted"),
        );
        expect(turn.unfinished.map((t) => t.name)).toEqual(["transfer"]);
        turn = (await chat.turns())[0]!;
        expect(await turn.resume({ rerun: [1] })).toBe("ok: moved 5 from A-1");
        expect(lm.requests).toHaveLength(1);
      } finally {
        await here.close();
      }
      expect(began(w.calls, "transfer")).toBe(2); // the first run, and the person's rerun
      await wakeWritesNothing(w, host, pid, store, /^(lease-lost|turn-claimed)$/, ["transfer", "transfer"]);
    });
  }, 60_000);

  it.skipIf(NO_SERVER !== null)(
    "PostgreSQL: its lock session is ended, the turn is claimed with a rerun (sent once); woken, the host writes nothing and sends no call",
    async () => {
      const w = await world();
      const schema = freshSchema();
      const app = `hunt4-${schema}`;
      const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
      const host = startHost(w, { action: "send", conversation: "acct", first: TRANSFER, lease: PG_LEASE, pg: { url: SERVER_URL!, schema, app } });
      try {
        await until("the server runs the transfer", () => began(w.calls, "transfer") === 1);
        const pid = hostPid(host, false);
        process.kill(pid, "SIGSTOP");
        await until("the host is stopped", () => isStopped(pid));
        const here = await hereDesk(w);
        try {
          const lm = deskModel(TRANSFER);
          const chat = here.desk.conversation("acct", { store, lm, lease: PG_LEASE });
          let turn = (await chat.turns())[0]!;
          expect(turn.state).toBe("running"); // it holds its lock, paused
          expect((await cutLockSession(app)).filter((r) => r.ok)).toHaveLength(1);
          await until("the turn reads interrupted", async () => (await turn.refresh(), turn.state === "interrupted"));
          writeFileSync(w.gate, "open");
          turn = (await chat.turns())[0]!;
          expect(await turn.resume({ rerun: [1] })).toBe("ok: moved 5 from A-1");
          expect(lm.requests).toHaveLength(1);
        } finally {
          await here.close();
        }
        await until("the stopped host's server answered", () => callsIn(w.calls).filter((c) => c.phase === "end").length === 2);
        await wakeWritesNothing(w, host, pid, store, /^(lease-lost|turn-claimed)$/, ["transfer", "transfer"]);
      } finally {
        host.kill();
        endServers(w.calls);
        await store.close();
        await dropSchema(schema);
      }
    },
    60_000,
  );
});
