/**
 * Hunt 157: a tool call that never reached its tool (the model calls `transfer`, a tool the desk does not have, or a
 * `refund` a plugin's `toolCall` blocked, which the records keep) is told to `toolResult` (`unrun`) by the run that
 * first sends the model its step's results. Before, that was read as
 * "the run that paid for the step's reply": a run that paid for a step made only of such calls and died (SIGKILL)
 * after its reply was kept but before it told the plugins left them untold for good, since the run that resumed
 * replayed the reply and told nothing. Now a run that replays such a step tells them unless an earlier run's reply to
 * the next request is kept (that run sent the results, so it had told them first).
 *
 * Decided where the contract was silent (and as the README says of refusals): the records keep nothing of what a hook
 * was told, so a run that told them and died before its next request's reply was kept cannot be told from one that
 * died before telling: the run that resumes tells them again (each run that dies in that window is followed by one
 * more telling). Once the next reply is kept, no later run tells them.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { postgresStore } from "../../adapters/postgres/index.js";
import type { Store } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { Child } from "../durable/fixtures/hunt2-children.js";
import { bundled, removeBundles } from "../durable/fixtures/spawn.js";
import { tempDirs } from "../fixtures/temp-dirs.js";
import { NO_SERVER, SERVER_URL, freshSchema, openStores } from "../postgres/server.js";
import { audit, gate, toldIn, unrunDesk, type Mode } from "./fixtures/hunt157-desk.js";

const { open: opened, cleanUp } = openStores();
afterAll(async () => {
  await removeBundles();
  await cleanUp();
});
const recordsDir = tempDirs("functai-hunt157-");

/** The store at `where`: a folder, or `pg:<schema>` on the test server (one store per schema, closed after the tests). */
function storeAt(where: string): Store {
  if (!where.startsWith("pg:")) return fsStore(where, { lockStaleMs: 200 });
  const schema = where.slice(3);
  const found = opened.find((o) => o.schema === schema);
  if (found) return found.store;
  const store = postgresStore({ connectionString: SERVER_URL! }, { schema });
  opened.push({ store, schema });
  return store;
}

/**
 * The replies the records at `where` keep, by step, polled until `steps` are kept (the child's timer keeps them within
 * 100 ms), and with them a plugin's block when `blocked` (kept as soon).
 */
async function keptReplies(where: string, steps: number, blocked: boolean): Promise<number[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const records = await storeAt(where).read("sam");
    const kept = records.filter((r) => r.kind === "reply").map((r) => (r as { step?: number }).step!);
    const block = records.some((r) => r.kind === "approval" && (r as { blocked?: unknown }).blocked === true);
    if ((kept.length >= steps && block === blocked) || Date.now() > deadline) return kept;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs the child until it stops for good at `mode`'s point with `steps` replies kept, and SIGKILLs it there. */
async function killedAt(where: string, file: string, mode: Mode, at: string, steps: number): Promise<void> {
  const script = await bundled(fileURLToPath(new URL("./fixtures/hunt157-unrun-child.ts", import.meta.url)));
  const child = new Child(spawn(process.execPath, [script, where, file, mode], { stdio: ["ignore", "pipe", "pipe"] }));
  try {
    await child.line(at);
    expect(await keptReplies(where, steps, mode === "blocked")).toEqual(steps === 1 ? [1] : [1, 2]);
    child.kill();
    expect(await child.exited).toBe("SIGKILL");
  } finally {
    child.kill();
  }
}

/** Resumes the interrupted turn in this process (its `lookup` answers), told to `audit` as the run "resumed". */
async function resumed(where: string, file: string, paid: readonly string[]): Promise<unknown> {
  const desk = unrunDesk(async (id) => `order ${id}: shipped`);
  const chat = desk.conversation("sam", {
    store: storeAt(where),
    lm: scripted([...paid]),
    plugins: [gate, audit(file, "resumed")],
  });
  const [turn] = await chat.turns();
  expect(turn!.state).toBe("interrupted");
  return turn!.resume();
}

const unknownTold = (file: string) => toldIn(file).filter((t) => t.name === "transfer");

describe("a call that never reached its tool is told across a crash", () => {
  it("killed after its reply was kept and before the plugins were told: the resumed run tells them, once", async () => {
    const folder = recordsDir();
    const file = join(folder, "told.jsonl");
    await killedAt(folder, file, "before-told", "stuck", 1);
    expect(unknownTold(file)).toEqual([]); // (the first run told nothing of it to audit)
    expect(await resumed(folder, file, ["Done."])).toBe("Done.");
    // before: [] (the resumed run replayed the step's reply and read the step as settled by the run that paid for it)
    expect(unknownTold(file)).toEqual([{ run: "resumed", name: "transfer", code: "tool-unknown" }]);
  }, 30_000);

  it.skipIf(NO_SERVER !== null)(
    "on PostgreSQL too: killed before the plugins were told, the resumed run tells them, once",
    async () => {
      const where = `pg:${freshSchema()}`;
      const file = join(recordsDir(), "told.jsonl");
      await killedAt(where, file, "before-told", "stuck", 1);
      expect(await resumed(where, file, ["Done."])).toBe("Done.");
      // before: [] (told by nobody)
      expect(unknownTold(file)).toEqual([{ run: "resumed", name: "transfer", code: "tool-unknown" }]);
    },
    30_000,
  );

  it("so too a call a plugin's toolCall blocked (the block read back from the records): told once, by the resumed run", async () => {
    const folder = recordsDir();
    const file = join(folder, "told.jsonl");
    await killedAt(folder, file, "blocked", "stuck", 1);
    const records = await storeAt(folder).read("sam");
    expect(records.filter((r) => r.kind === "approval")).toMatchObject([{ blocked: true, verdict: "no", reason: "Refunds go to finance." }]);
    expect(await resumed(folder, file, ["Done."])).toBe("Done.");
    // before: [] (told by nobody)
    expect(toldIn(file)).toEqual([{ run: "resumed", name: "refund", code: "tool-blocked", by: "gate" }]);
  }, 30_000);

  it("killed after telling them, before its next request's reply was kept: the resumed run tells them again (twice in all)", async () => {
    const folder = recordsDir();
    const file = join(folder, "told.jsonl");
    await killedAt(folder, file, "after-told", "stuck", 1);
    expect(await resumed(folder, file, ["Done."])).toBe("Done.");
    // (the records cannot say whether the first run told them: as a refusal is, they are told again, as the README says)
    expect(unknownTold(file)).toEqual([
      { run: "first", name: "transfer", code: "tool-unknown" },
      { run: "resumed", name: "transfer", code: "tool-unknown" },
    ]);
  }, 30_000);

  it("guard: killed after its next request's reply was kept, the resumed run does not tell them again", async () => {
    const folder = recordsDir();
    const file = join(folder, "told.jsonl");
    await killedAt(folder, file, "after-next", "looking", 2);
    expect(await resumed(folder, file, ["Done."])).toBe("Done.");
    expect(unknownTold(file)).toEqual([{ run: "first", name: "transfer", code: "tool-unknown" }]);
    // (the call that ran is told by the run that ran it: the lookup the first run never finished)
    expect(toldIn(file).filter((t) => t.name === "lookup")).toEqual([{ run: "resumed", name: "lookup", code: null }]);
  }, 30_000);
});
