/**
 * Hunt, on a real PostgreSQL server: a host stopped with SIGSTOP at moments
 * other than just after its `started` record (hunt-pg.test.ts has that one),
 * while the server ends its connections (all of them, or only its lock
 * session) and another host goes on with the turn; then SIGCONT. The woken
 * host must pay for no model reply more, write no record more and run no
 * tool more: it stops with lease-lost (or turn-claimed).
 */
import { existsSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { removeBundles } from "../durable/fixtures/spawn.js";
import { desk, deskLM, lines, paidSteps } from "./fixtures/hunt2-desk.js";
import { cutLockSession, cutOff, files, recordsOf, startChild, until, untilStopped } from "./fixtures/hunt2.js";
import type { Hunt2Config } from "./fixtures/hunt2-child.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

afterAll(removeBundles);
/** Never runs out here: only the advisory lock tells who lives. */
const LEASE = { renewMs: 10_000, ttlMs: 30_000 };
/** Renewed often: a renewal comes soon after a wake. */
const QUICK = { renewMs: 500, ttlMs: 30_000 };

type F = ReturnType<typeof files>;
type Chat = ReturnType<ReturnType<typeof desk>["conversation"]>;

/**
 * Starts a child that stops itself at `stopAt`, cuts it off (`cut`), lets
 * this process (another host) take the turn over with `takeOver`, then
 * wakes the child and checks it did nothing more: no record, no paid
 * request, no tool run. `woken` runs between SIGCONT and the end (a tool's wait let go).
 */
async function stalled(opts: {
  stopAt: Hunt2Config["stopAt"];
  cut: "all" | "lock";
  lease?: { renewMs: number; ttlMs: number };
  waits?: boolean;
  takeOver: (chat: Chat, f: F) => Promise<void>;
  woken?: (f: F) => Promise<void>;
}): Promise<void> {
  const schema = freshSchema();
  const f = files();
  const app = `hunt2-${schema}`;
  const lease = opts.lease ?? LEASE;
  const childFiles = opts.waits ? f.desk : { paid: f.desk.paid, effects: f.desk.effects };
  const child = await startChild({ schema, app, conversation: "w", stopAt: opts.stopAt, stopped: f.stopped, files: childFiles, lease });
  const here = postgresStore({ connectionString: SERVER_URL! }, { schema });
  try {
    await untilStopped(f.stopped, child);
    if (opts.cut === "all") await cutOff(app);
    else expect((await cutLockSession(app)).filter((r) => r.ok)).toHaveLength(1);
    const chat = desk({ paid: f.desk.paid, effects: f.desk.effects }).conversation("w", { store: here, lm: deskLM(f.desk), lease: LEASE });
    await until("the turn reads interrupted (its lock went with its session)", async () => (await chat.turns())[0]?.state === "interrupted");
    await opts.takeOver(chat, f);
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("done");
    const records = (await recordsOf(schema, "w")).length;
    const paid = lines(f.desk.paid).length;
    const effects = lines(f.desk.effects);
    child.proc.kill("SIGCONT");
    await opts.woken?.(f);
    const end = await child.done;
    // (all its connections cut, its next append may fail on its pool's dead connection first: store-io, the turn let go)
    expect(end.out?.error, `${JSON.stringify(end.out)} ${end.stderr}`).toMatch(opts.cut === "all" ? /^(lease-lost|turn-claimed|store-io)$/ : /^(lease-lost|turn-claimed)$/);
    expect(lines(f.desk.paid).slice(paid), "model requests the woken host paid for").toEqual([]);
    expect((await recordsOf(schema, "w")).length, "records the woken host wrote").toBe(records);
    expect(lines(f.desk.effects)).toEqual(effects);
  } finally {
    child.proc.kill("SIGKILL");
    await here.close();
    await dropSchema(schema);
  }
}

describe.skipIf(NO_SERVER !== null)("a host SIGSTOPped at other moments, cut off, then woken after another host went on (PostgreSQL)", () => {
  it("stopped just before its refund's started append: woken, its append is refused, the refund runs once, on the other host (it never started here)", async () => {
    await stalled({
      stopAt: "before-started",
      cut: "all",
      takeOver: async (chat, f) => {
        const [turn] = await chat.turns();
        expect(turn!.unfinished).toEqual([]); // its started never reached the store
        expect(await turn!.resume()).toBe("Refunded.");
        expect(lines(f.desk.effects)).toEqual(["refund"]);
      },
    });
  });

  it("stopped just before its refund's started append, only its lock session ended: the same", async () => {
    await stalled({
      stopAt: "before-started",
      cut: "lock",
      takeOver: async (chat) => {
        const [turn] = await chat.turns();
        expect(await turn!.resume()).toBe("Refunded.");
      },
    });
  });

  it("stopped in its refund's body (the refund awaits), cut off; a person says what the refund gave: woken, the refund's signal aborts, and it writes and pays nothing more", async () => {
    await stalled({
      stopAt: "in-tool",
      cut: "all",
      lease: QUICK,
      waits: true,
      takeOver: async (chat, f) => {
        const [turn] = await chat.turns();
        expect(turn!.unfinished.map((u) => u.name)).toEqual(["refund"]);
        expect(await turn!.resume({ results: { [turn!.unfinished[0]!.invocation]: "refunded by hand" } })).toBe("Refunded.");
        expect(paidSteps(f.desk)).toEqual({ step0: 1, step1: 1, step2: 1 }); // replies kept were not paid again
      },
      woken: async (f) => {
        // its next renewal (due at once: it was stopped for longer) finds the turn another's and aborts the refund
        await until("the woken refund's signal aborted", () => existsSync(f.desk.aborted), 10_000);
        writeFileSync(f.desk.waitFor, "");
      },
    });
  });

  it("stopped in its refund's body, only its lock session ended; a person asks for a rerun: woken, the refund's signal aborts, and it writes and pays nothing more", async () => {
    await stalled({
      stopAt: "in-tool",
      cut: "lock",
      lease: QUICK,
      waits: true,
      takeOver: async (chat, f) => {
        const [turn] = await chat.turns();
        expect(await turn!.resume({ rerun: [turn!.unfinished[0]!.invocation] })).toBe("Refunded.");
        expect(lines(f.desk.effects)).toEqual(["refund", "refund"]); // the stopped one's, and the rerun a person asked for
      },
      woken: async (f) => {
        await until("the woken refund's signal aborted", () => existsSync(f.desk.aborted), 10_000);
        writeFileSync(f.desk.waitFor, "");
      },
    });
  });

  it("stopped just before a lease renewal's append while its refund awaits, cut off; a person says what the refund gave: woken, the renewal is refused, the refund aborts", async () => {
    await stalled({
      stopAt: "renewal",
      cut: "all",
      lease: QUICK,
      waits: true,
      takeOver: async (chat) => {
        const [turn] = await chat.turns();
        expect(turn!.unfinished.map((u) => u.name)).toEqual(["refund"]);
        expect(await turn!.resume({ results: { [turn!.unfinished[0]!.invocation]: "refunded by hand" } })).toBe("Refunded.");
      },
      woken: async (f) => {
        await until("the woken refund's signal aborted", () => existsSync(f.desk.aborted), 10_000);
        writeFileSync(f.desk.waitFor, "");
      },
    });
  });

  // The flush that keeps the replies before a paid request is the longest wait before it: a holder paused there woke and
  // paid for the step-1 reply that the other host had already paid for and kept (then stopped at its next append, so no
  // tool ran twice). The engine now asks about the lease again after that flush, as after a changing tool's started write.
  it("stopped just after the flush that keeps the step-0 reply before paying step 1, cut off: woken after another host finished the turn, it pays for no reply", async () => {
    await stalled({
      stopAt: "kept",
      cut: "all",
      takeOver: async (chat, f) => {
        const [turn] = await chat.turns();
        expect(turn!.unfinished).toEqual([]);
        expect(await turn!.resume()).toBe("Refunded.");
        expect(paidSteps(f.desk)).toEqual({ step0: 1, step1: 1, step2: 1 });
      },
    });
  });

  // as above, its pool intact (it paid step 1 again, then its started append was fenced out: lease-lost)
  it("stopped just after the flush that keeps the step-0 reply, only its lock session ended: woken, it pays for no reply", async () => {
    await stalled({
      stopAt: "kept",
      cut: "lock",
      takeOver: async (chat) => {
        const [turn] = await chat.turns();
        expect(await turn!.resume()).toBe("Refunded.");
      },
    });
  });
});
