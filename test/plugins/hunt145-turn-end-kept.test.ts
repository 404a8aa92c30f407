/**
 * Hunt 145: a plugin's `turnEnd` hook is told a conversation's run ended (done, failed, or stopped by its caller) only
 * once that end is kept (its `ended` record durable). Before, it was told first and the record written after: a
 * process that died between the two left the turn interrupted, and the run that resumed it told an end again (done
 * or failed, or another than the one told, with whatever that run's model answered). Hooks are told once per fact
 * that is kept. So too a run whose end the store refused: the turn is let go (interrupted), and that is what its
 * hooks are told, not the end that was never kept.
 *
 * Decided where the contract was silent: a `turnEnd` hook that throws on a conversation's done or failed end no longer
 * changes it (the end is kept before it is told): the turn stays done (or failed for its own reason) and the call
 * rejects `plugin-failed`, as on a resumable end (hunt 79). A plain call keeps nothing, and is unchanged.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { fsStore } from "../../adapters/node-fs/index.js";
import { postgresStore } from "../../adapters/postgres/index.js";
import { FunctaiError, memoryStore, program, type Plugin, type PluginTurnEnd } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";
import { Child } from "../durable/fixtures/hunt2-children.js";
import { bundled, removeBundles } from "../durable/fixtures/spawn.js";
import { tempDirs } from "../fixtures/temp-dirs.js";
import { NO_SERVER, SERVER_URL, freshSchema, openStores } from "../postgres/server.js";
import { endingDesk } from "./fixtures/hunt145-desk.js";

const { open: opened, cleanUp } = openStores();
afterAll(async () => {
  await removeBundles();
  await cleanUp();
});
const recordsDir = tempDirs("functai-hunt145-");
const { desk } = endingDesk("done");

/** A plugin that notes each end it is told (state and attempt), with a `turnEnd` of the test's own after that when given. */
function ends(then?: (end: PluginTurnEnd) => void | Promise<void>) {
  const told: { state: string; attempt: number; code?: string | null }[] = [];
  const plugin: Plugin = {
    name: "billing",
    version: "1",
    hooks: {
      turnEnd: (end) => {
        told.push({ state: end.state, attempt: end.attempt, ...("code" in end && { code: end.code }) });
        return then?.(end);
      },
    },
  };
  return { plugin, told };
}

const isEnded = (r: object) => (r as { kind?: string }).kind === "ended";

describe("turnEnd is told a conversation's done end once it is kept", () => {
  /** Runs the child over `where` (a folder, or `pg:<schema>`) until its turnEnd hook is told the end, and SIGKILLs it there. */
  async function killedWhenTold(where: string, mode: "done" | "failed" | "stopped"): Promise<void> {
    const script = await bundled(fileURLToPath(new URL("./fixtures/hunt145-turn-end-child.ts", import.meta.url)));
    const child = new Child(spawn(process.execPath, [script, where, mode], { stdio: ["ignore", "pipe", "pipe"] }));
    try {
      expect(await child.line("told")).toEqual({ told: mode, attempt: 1 });
      child.kill();
      expect(await child.exited).toBe("SIGKILL");
    } finally {
      child.kill();
    }
  }

  it.each([
    ["done", "Hello sam."],
    ["failed", undefined],
    ["stopped", undefined],
  ] as const)("a process killed (SIGKILL) in its turnEnd hook, told %s, leaves the turn so: nothing resumes it to tell another end", async (mode, value) => {
    const dir = recordsDir();
    await killedWhenTold(dir, mode);
    const [turn] = await desk.conversation("sam", { store: fsStore(dir, { lockStaleMs: 200 }), lm: scripted([]) }).turns();
    // before: interrupted (its `ended` record was to be written after the hook), and its resume told an end again
    expect(turn!.state).toBe(mode);
    expect(turn!.value).toBe(value);
  });

  it.skipIf(NO_SERVER !== null)("on PostgreSQL too: killed in its turnEnd hook told done, the turn is done", async () => {
    const schema = freshSchema();
    await killedWhenTold(`pg:${schema}`, "done");
    const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
    opened.push({ store, schema });
    const [turn] = await desk.conversation("sam", { store, lm: scripted([]) }).turns();
    expect(turn!.state).toBe("done");
    expect(turn!.value).toBe("Hello sam.");
  });

  it("an end the store refused is not told done: the run is told it was interrupted (as the turn reads), the resumed run tells done, once", async () => {
    const dir = recordsDir();
    const first = ends();
    const refusing = faultyStore(fsStore(dir), { failOn: (call) => (call.records.some(isEnded) ? "before-write" : undefined) });
    const err = await desk
      .conversation("sam", { store: refusing, lm: scripted(["Hello sam."]), plugins: [first.plugin] })
      .send("hi")
      .catch((e: unknown) => e);
    expect((err as FunctaiError).code).toBe("store-io");
    const later = ends();
    const [turn] = await desk.conversation("sam", { store: fsStore(dir), lm: scripted([]), plugins: [later.plugin] }).turns();
    expect(turn!.state).toBe("interrupted");
    expect(await turn!.resume()).toBe("Hello sam."); // (its reply was kept with the let-go: not paid again)
    // before: the first run was told done, and the resumed one done again
    expect(first.told).toEqual([{ state: "interrupted", attempt: 1, code: "store-io" }]);
    expect(later.told).toEqual([{ state: "done", attempt: 2 }]);
  });

  it("a failed end the store refused is not told failed: told interrupted (as the turn reads), then failed by the run that resumed it", async () => {
    const dir = recordsDir();
    const { desk: counter, lm } = endingDesk("failed");
    const first = ends();
    const refusing = faultyStore(fsStore(dir), { failOn: (call) => (call.records.some(isEnded) ? "before-write" : undefined) });
    await expect(counter.conversation("sam", { store: refusing, lm, plugins: [first.plugin] }).send("hi")).rejects.toMatchObject({ code: "store-io" });
    const later = ends();
    const [turn] = await counter.conversation("sam", { store: fsStore(dir), lm: scripted([]), plugins: [later.plugin] }).turns();
    expect(turn!.state).toBe("interrupted");
    await expect(turn!.resume()).rejects.toMatchObject({ code: "output-invalid" }); // (its replies were kept: read again)
    // before: the first run was told failed, and the resumed one failed again
    expect(first.told).toEqual([{ state: "interrupted", attempt: 1, code: "store-io" }]);
    expect(later.told).toEqual([{ state: "failed", attempt: 2, code: "output-invalid" }]);
  });

  it("a turnEnd hook that throws on a failed end: the turn is kept failed for its own reason, the call rejects plugin-failed", async () => {
    const { desk: counter, lm } = endingDesk("failed");
    const store = memoryStore();
    const broken = ends(() => {
      throw new Error("billing service down");
    });
    const err = await counter
      .conversation("c1", { store, lm, plugins: [broken.plugin] })
      .send("hi")
      .catch((e: unknown) => e);
    expect((err as FunctaiError).code).toBe("plugin-failed");
    expect(((err as FunctaiError).cause as Error).message).toBe("billing service down");
    const [turn] = await counter.conversation("c1", { store, lm: scripted([]) }).turns();
    expect(turn!.state).toBe("failed");
    // before: the record said a plugin failed, not why the turn did
    expect(turn!.error).toMatchObject({ code: "output-invalid" });
  });

  it("a turnEnd hook that throws on a done end: the turn stays done (kept), the call rejects plugin-failed naming the plugin", async () => {
    const store = memoryStore();
    const broken = ends(() => {
      throw new Error("billing service down");
    });
    const err = await desk
      .conversation("c1", { store, lm: scripted(["Hello sam."]), plugins: [broken.plugin] })
      .send("hi")
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FunctaiError);
    expect((err as FunctaiError).code).toBe("plugin-failed");
    expect((err as FunctaiError).message).toContain("billing");
    expect(((err as FunctaiError).cause as Error).message).toBe("billing service down");
    const [turn] = await desk.conversation("c1", { store, lm: scripted([]) }).turns();
    expect(turn!.state).toBe("done");
    expect(turn!.value).toBe("Hello sam.");
    expect((await store.read("c1")).filter(isEnded)).toHaveLength(1);
  });

  it("a stop while a turnEnd hook hangs on a kept done end: the call rejects turn-aborted, the turn stays done, nothing after its end", async () => {
    let told!: () => void;
    const hung = new Promise<void>((r) => (told = r));
    const deaf = ends(() => {
      told();
      return new Promise<void>(() => {});
    });
    const store = memoryStore();
    const controller = new AbortController();
    const sent = desk.conversation("c1", { store, lm: scripted(["Hello sam."]), plugins: [deaf.plugin] }).send("hi", { signal: controller.signal });
    await hung;
    controller.abort();
    // (settled after the stop's grace: the hook never answers)
    await expect(sent).rejects.toMatchObject({ code: "turn-aborted" });
    const records = await store.read("c1");
    // before: the paid answer was dropped, and the turn recorded stopped
    expect(records.at(-1)).toMatchObject({ kind: "ended", state: "done", value: "Hello sam." });
    expect(records.filter(isEnded)).toHaveLength(1);
  }, 20_000);

  it("what a turnEnd hook keeps on a done end is still kept, written after the end (before, before it)", async () => {
    const store = memoryStore();
    const keeper = ends((end) => end.keep({ billed: end.state }));
    expect(await desk.conversation("c1", { store, lm: scripted(["Hello sam."]), plugins: [keeper.plugin] }).send("hi")).toBe("Hello sam.");
    const kinds = (await store.read("c1")).map((r) => r.kind);
    expect(kinds.slice(kinds.indexOf("ended"))).toEqual(["ended", "plugin"]);
    const kept = (await store.read("c1")).filter((r) => r.kind === "plugin").map((r) => (r as { data?: unknown }).data);
    expect(kept).toEqual([{ billed: "done" }]);
  });

  it("an answer JSON cannot keep (a BigInt) is told failed (output-invalid), as the turn is recorded, never done", async () => {
    const watched = ends();
    const count = program("count", { description: "Counts.", input: { text: z.string() }, output: z.bigint() }, ({ text }) => BigInt(text.length));
    const chat = count.conversation("c1", { store: memoryStore(), plugins: [watched.plugin] });
    await expect(chat.send("abc")).rejects.toMatchObject({ code: "output-invalid" });
    expect((await chat.turns()).map((t) => t.state)).toEqual(["failed"]);
    // before: told done (the answer was checked after the hooks ran), and the turn recorded failed
    expect(watched.told).toEqual([{ state: "failed", attempt: 1, code: "output-invalid" }]);
  });
});
