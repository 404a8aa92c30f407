/**
 * Hunt: the engine's less-travelled paths between a model reply and a side
 * effect, on the file store, with a real child process that dies (SIGKILL)
 * or stops dead (its event loop blocked, as a suspended VM) at an exact
 * moment: tools run side by side, a delegated turn's changing tool, an
 * approve function or a plugin hook that stalls, a tool that fails after its
 * effect, the step limit reached. Another process (a host of its own when
 * the child stops: its pid cannot be looked up, only its lease tells) then
 * goes on with the turn. Each case counts the tools run (one line each in
 * the effects log) and the model requests paid on both sides.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { scripted } from "../../src/testing/index.js";
import { ended, until } from "./fixtures/hunt-block.js";
import type { Hunt3Config } from "./fixtures/hunt3-child.js";
import { call, effects, world } from "./fixtures/hunt3-world.js";
import { bundled, fixture, removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);
const LEASE = { renewMs: 50, ttlMs: 300 };

interface Run {
  proc: ChildProcess;
  done: Promise<{ out: { ok?: unknown; error?: string; message?: string; requests?: number } | null; stderr: string; signal: NodeJS.Signals | null }>;
  config: Hunt3Config;
}

function setup(scenario: Hunt3Config["scenario"], at: Hunt3Config["at"], act: Hunt3Config["act"], more: Partial<Hunt3Config> = {}): Hunt3Config {
  const dir = mkdtempSync(join(tmpdir(), "functai-hunt3-"));
  return {
    dir,
    conversation: "w",
    scenario,
    at,
    act,
    lease: LEASE,
    blocked: join(dir, "blocked"),
    go: join(dir, "go"),
    effects: join(dir, "effects.log"),
    release: join(dir, "release"),
    ...more,
  };
}

/** Starts the child; a blocking one in a pid namespace of its own (as on another host: only its lease tells). */
async function start(config: Hunt3Config): Promise<Run> {
  const script = await bundled(fixture("hunt3-child.ts"));
  const node = [process.execPath, script, JSON.stringify(config)];
  const proc =
    config.act === "block"
      ? spawn("unshare", ["--pid", "--fork", "--kill-child", ...node], { stdio: ["ignore", "pipe", "pipe"] })
      : spawn(node[0]!, node.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  return { proc, done: ended(proc), config };
}

/** The child reached its moment: killed (its process ended), or blocked. */
async function reached(run: Run): Promise<void> {
  await until("the child reached its moment", () => existsSync(run.config.blocked));
  if (run.config.act === "kill") expect((await run.done).signal).toBe("SIGKILL");
}

/** Wakes a blocked child (and lets any waiting tool of it finish); its end. */
async function wake(run: Run) {
  writeFileSync(run.config.go, "");
  writeFileSync(run.config.release, "");
  return run.done;
}

const ran = (config: Hunt3Config, prefix: string): string[] => effects(config.effects).filter((l) => l.startsWith(prefix));

/**
 * Wakes the blocked child after the takeover here: it ends lease-lost having paid `requests` in all, writes nothing
 * more to conversation w, and the tool `prefix` names ran `times` in all.
 */
async function wokenWritesNothing(run: Run, store: ReturnType<typeof fsStore>, requests: number, prefix: string, times = 1): Promise<void> {
  const length = (await store.read("w")).length;
  const end = await wake(run);
  expect(end.out, end.stderr).toMatchObject({ error: "lease-lost", requests });
  expect((await store.read("w")).length).toBe(length);
  expect(ran(run.config, prefix)).toHaveLength(times);
}

/** The world of the child, here (the same tools and functions), and the store. */
function hereOf(config: Hunt3Config) {
  return { w: world({ effects: config.effects, release: config.release }), store: fsStore(config.dir) };
}

/** Starts the child, waits for its moment, and runs `body` with the same world and store here; the child is killed after, whatever happened. */
async function atMoment(config: Hunt3Config, body: (run: Run, here: ReturnType<typeof hereOf>) => Promise<void>): Promise<void> {
  const run = await start(config);
  try {
    await reached(run);
    await body(run, hereOf(config));
  } finally {
    run.proc.kill("SIGKILL");
  }
}

async function interrupted(chat: { turns(): Promise<{ state: string }[]> }): Promise<void> {
  await until("the turn reads interrupted", async () => (await chat.turns())[0]?.state === "interrupted");
}

describe("tools run side by side: one changing tool's started record kept while another changing tool is mid-run (attack 1)", () => {
  for (const act of ["kill", "block"] as const)
    it(`${act === "kill" ? "killed" : "stopped dead, then woken"} there: each tool is settled once (the mid-run one and the one that never ran are left to a person), no reply paid twice`, async () => {
      const config = setup("parallel", "started-2", act);
      await atMoment(config, async (run, { w, store }) => {
        const lm = scripted(["Done."]);
        const chat = w.parallel.conversation("w", { store, lm, lease: LEASE });
        await interrupted(chat);
        const [turn] = await chat.turns();
        // slow ran (and may not have finished), B's start was kept but it never ran: both are a person's to settle
        expect(turn!.unfinished.map((u) => [u.invocation, u.name, (u.input as { order: string }).order])).toEqual([
          [1, "refund", "slow"],
          [2, "refund", "B"],
        ]);
        expect(ran(config, "refund:")).toEqual([expect.stringMatching(/^refund:slow:/)]);
        expect(await turn!.resume({ results: { 1: "refunded slow" }, rerun: [2] })).toBe("Done.");
        expect(lm.requests).toHaveLength(1); // the reply asking for the three tools came from the journal
        expect(ran(config, "refund:slow:")).toHaveLength(1);
        expect(ran(config, "refund:B:")).toHaveLength(1);
        const length = (await store.read("w")).length;
        if (act === "block") {
          const end = await wake(run);
          expect(end.out, end.stderr).toMatchObject({ error: "lease-lost", requests: 1 });
        }
        expect((await store.read("w")).length).toBe(length); // nothing written after the takeover
        expect(ran(config, "refund:slow:")).toHaveLength(1);
        expect(ran(config, "refund:B:")).toHaveLength(1); // the woken holder did not run B
      });
    });
});

describe("a delegated turn's changing tool (attack 2)", () => {
  for (const act of ["kill", "block"] as const)
    it(`${act === "kill" ? "killed" : "stopped dead"} just after the delegated charge's started record: the caller's resume stops for a person; once the charge is settled there, no reply of either turn is paid twice and the charge runs once`, async () => {
      const config = setup("delegate", "started-charge", act);
      await atMoment(config, async (run, { w, store }) => {
        const lm = scripted(["billing: charged", "Charged."]);
        const desk = w.delegating.conversation("w", { store, lm, lease: LEASE });
        const billing = w.billing.conversation("w.billing", { store, lm, lease: LEASE });
        await interrupted(desk);
        await interrupted(billing);
        const [deskTurn] = await desk.turns();
        // the delegated turn may have charged: the caller stops for a person, paying nothing
        await expect(deskTurn!.resume()).rejects.toMatchObject({ code: "turn-unfinished" });
        expect(lm.requests).toHaveLength(0);
        const [billingTurn] = await billing.turns();
        expect(billingTurn!.unfinished.map((u) => u.name)).toEqual(["charge"]);
        expect(ran(config, "charge:")).toEqual([]); // it never got to run it
        expect(await billingTurn!.resume({ rerun: [1] })).toBe("billing: charged");
        expect(await (await desk.turns())[0]!.resume()).toBe("Charged.");
        expect(lm.requests).toHaveLength(2); // billing's answer and desk's: the calls came from the journals
        expect(ran(config, "charge:")).toHaveLength(1);
        const lengths = [(await store.read("w")).length, (await store.read("w.billing")).length];
        if (act === "block") {
          const end = await wake(run);
          expect(end.out, end.stderr).toMatchObject({ error: "lease-lost", requests: 2 });
        }
        expect([(await store.read("w")).length, (await store.read("w.billing")).length]).toEqual(lengths);
        expect(ran(config, "charge:")).toHaveLength(1);
      });
    });
});

describe("an approve function or a plugin hook that stalls before a changing tool, while another host takes the turn (attack 3)", () => {
  it("stopped dead inside the approve function: another host asks a person, who says yes; woken, the approve function's yes runs nothing", async () => {
    const config = setup("approve", "approve", "block");
    await atMoment(config, async (run, { w, store }) => {
      const lm = scripted([{ toolCalls: [call("refund", "A")] }, "Refunded."]);
      const chat = w.refunds.conversation("w", { store, lm, lease: LEASE });
      await interrupted(chat);
      // the turn was sent with an approve function: resumed without one, a person is asked
      await expect((await chat.turns())[0]!.resume()).rejects.toMatchObject({ code: "turn-waiting" });
      // its reply was not kept yet (the first durable write of a step is before its changing tool, or its next
      // request): asked again here, as a reply whose step was not kept may be
      expect(lm.requests).toHaveLength(1);
      expect(ran(config, "refund:")).toEqual([]);
      expect(await (await chat.turns())[0]!.approve({ by: "maria" })).toBe("Refunded.");
      expect(lm.requests).toHaveLength(2);
      expect(ran(config, "refund:")).toHaveLength(1);
      await wokenWritesNothing(run, store, 1, "refund:");
    });
  });

  it("stopped dead inside a plugin's toolCall hook: another host runs the refund; woken, the hook's go-ahead runs nothing", async () => {
    const config = setup("hook", "hook", "block");
    await atMoment(config, async (run, { w, store }) => {
      const lm = scripted([{ toolCalls: [call("refund", "A")] }, "Refunded."]);
      const chat = w.refunds.conversation("w", { store, lm, lease: LEASE });
      await interrupted(chat);
      expect((await chat.turns())[0]!.unfinished).toEqual([]); // nothing started there
      expect(await (await chat.turns())[0]!.resume()).toBe("Refunded.");
      expect(lm.requests).toHaveLength(2); // its step's reply was not kept there yet: asked again (allowed), then the answer
      expect(ran(config, "refund:")).toHaveLength(1);
      await wokenWritesNothing(run, store, 1, "refund:");
    });
  });

  it("stopped dead inside a plugin's toolResult hook (the refund ran, its done not written): a person says what it returned; woken, nothing more is written or paid", async () => {
    const config = setup("result", "result", "block");
    await atMoment(config, async (run, { w, store }) => {
      const lm = scripted(["Refunded."]);
      const chat = w.refunds.conversation("w", { store, lm, lease: LEASE });
      await interrupted(chat);
      const [turn] = await chat.turns();
      expect(turn!.unfinished.map((u) => u.name)).toEqual(["refund"]);
      expect(await turn!.resume({ results: { 1: "refunded A" } })).toBe("Refunded.");
      expect(lm.requests).toHaveLength(1);
      await wokenWritesNothing(run, store, 1, "refund:");
    });
  });
});

describe("a changing tool that fails after its effect (attack 4)", () => {
  for (const throwWith of ["error", "bigint"] as const)
    it(`${throwWith === "error" ? "throws" : "returns a BigInt"} after refunding; killed in the next model request: its failure was kept before the request, the resume re-runs nothing and pays only the reply in flight`, async () => {
      const config = setup("throws", "request-2", "kill", { throwWith });
      await atMoment(config, async (_run, { store }) => {
        const w = world({ effects: config.effects, release: config.release, throwWith });
        const lm = scripted(["It failed."]);
        const chat = w.refunds.conversation("w", { store, lm, lease: LEASE });
        await interrupted(chat);
        const [turn] = await chat.turns();
        expect(turn!.unfinished).toEqual([]); // its failure is its result: nothing for a person to settle
        const done = (await store.read("w")).filter((r) => r.kind === "tool" && (r as unknown as { state: string }).state === "done");
        expect(done).toEqual([expect.objectContaining({ name: "refund", error: expect.any(String) })]);
        expect(await turn!.resume()).toBe("It failed.");
        expect(lm.requests).toHaveLength(1); // the reply in flight when it died, asked again (allowed)
        expect(ran(config, "refund:")).toHaveLength(1);
      });
    });
});

describe("the step limit reached mid-turn (attack 5)", () => {
  it("stopped dead just after the last step's refund was journaled as started: the rerun fails the turn at the limit paying nothing; woken, nothing runs", async () => {
    const config = setup("steps", "started-2", "block");
    await atMoment(config, async (run, { w, store }) => {
      const lm = scripted(["Done."]);
      const chat = w.refunds.using({ maxSteps: 2 }).conversation("w", { store, lm, lease: LEASE });
      await interrupted(chat);
      const [turn] = await chat.turns();
      expect(turn!.unfinished.map((u) => (u.input as { order: string }).order)).toEqual(["B"]);
      await expect(turn!.resume({ rerun: [2] })).rejects.toMatchObject({ code: "step-limit" });
      expect(lm.requests).toHaveLength(0); // both replies came from the journal
      expect(ran(config, "refund:A:")).toHaveLength(1);
      expect(ran(config, "refund:B:")).toHaveLength(1);
      expect((await chat.turns())[0]!.state).toBe("failed");
      await wokenWritesNothing(run, store, 2, "refund:B:");
    });
  });
});

describe("a delegated turn whose caller was abandoned while its holder stalled (attack 2)", () => {
  // FIXED (it was a violation; the delegated turn now asks its caller's lease before each effect, Once.upstream): the caller (desk) stalls with its delegated turn (billing) in
  // billing's model call, the reply asking for the charge in hand; a person abandons the caller. Woken, the holder
  // finds the caller's lease gone (its renewal meets the `ended` record) and aborts the caller's running tools'
  // ctx.signal, the delegate among them; but the delegated turn is a turn of its own, whose lease nobody took,
  // and delegate() (src/functions/delegate.ts) neither passes the caller's signal to it nor asks the caller's lease
  // before its effects: it writes 6 records to w.billing after the abandon (its reply, a renewal, the charge's
  // started and done, its answer's reply, ended done), runs the charge and pays billing's answer (3 requests, not
  // 2); only then does desk stop with lease-lost. What should happen: the delegated turn stops before its next
  // record or side effect, as the caller's own tools would (an AI function used as a plain tool shares the
  // caller's lease and does stop).
  it("stopped dead inside billing's model call, the desk turn abandoned meanwhile: woken, the delegated turn charges nothing and pays nothing more", async () => {
    const config = setup("delegate", "billing-reply", "block");
    await atMoment(config, async (run, { w, store }) => {
      const desk = w.delegating.conversation("w", { store, lease: LEASE });
      await interrupted(desk);
      await (await desk.turns())[0]!.abandon();
      expect((await desk.turns())[0]!.state).toBe("abandoned");
      const billingLength = (await store.read("w.billing")).length;
      const end = await wake(run);
      expect(end.out, end.stderr).toMatchObject({ error: "lease-lost" });
      expect(ran(config, "charge:")).toEqual([]); // it ran after the abandon before (then: 3 requests, 6 records)
      expect(end.out!.requests).toBe(2); // desk's first reply and billing's first: nothing paid after the abandon
      // (its own lease renewal may still fire as it wakes, carrying the reply it had in hand: no tool record, no end)
      const after = (await store.read("w.billing")).slice(billingLength);
      expect(
        after.filter((r) => r.kind !== "lease" && r.kind !== "reply"),
        JSON.stringify(after),
      ).toEqual([]);
      expect(after.filter((r) => r.kind === "reply").length).toBeLessThanOrEqual(1);
    });
  });
});
