/**
 * DESIGN "Public API" (approve): a function asked about each call that
 * changes things; the engine journals its answer so a resumed turn does not
 * ask again about a call it already answered. An approve function that asks a
 * person (Slack, a ticket) may take minutes per call, and one reply may ask
 * for several: an answer given while the next call is still being asked must
 * be kept meanwhile, not only when the step's tools start (or at the next
 * lease renewal, 10 s by default). Killed there (real SIGKILL), the person's
 * "no" was lost: the resumed turn asked again about a call already refused,
 * and with a yes from whoever answered then, ran it.
 *
 * Kept, such an answer must answer only the call it was given to: a resumed
 * turn whose first request is sent anew (a deploy changed the desk) may be
 * answered with another call at the same place, which nobody was asked about.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { KEEP_REPLY_WITHIN_MS } from "../../src/engine/journal.js";
import { Child, until } from "../durable/fixtures/hunt2-children.js";
import { bundled, removeBundles } from "../durable/fixtures/spawn.js";
import { ANSWER, answersDesk } from "./fixtures/hunt62-answers.js";

afterAll(removeBundles);

/** Runs the child until its approve function answered A-1 (after its reply was kept) and waits on A-2, then SIGKILLs it. */
async function killedWhileAsking(yes: boolean): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "functai-hunt62-answers-"));
  const script = await bundled(fileURLToPath(new URL("./fixtures/hunt62-answers-child.ts", import.meta.url)));
  // the first answer comes well after the reply was kept (its own bound), as a person's does
  const config = { dir, firstMs: KEEP_REPLY_WITHIN_MS * 3, yes };
  const child = new Child(spawn(process.execPath, [script, JSON.stringify(config)], { stdio: ["ignore", "pipe", "pipe"] }));
  try {
    await child.line("answered");
    await child.line("waiting");
    // kept within KEEP_REPLY_WITHIN_MS of the answer; waited for generously (a loaded machine delays the child's
    // timer and its fsync), and killed as soon as it is on disk: before the fix it never was (the wait fails)
    const store = fsStore(dir, { lockStaleMs: 200 });
    await until("the answer to A-1 to be on disk", async () => (await store.read("orders")).some((r) => r.kind === "approval"), 10_000);
    child.kill();
    expect(await child.exited).toBe("SIGKILL");
  } finally {
    child.kill();
  }
  expect(child.lines.find((l) => "waiting" in l)!.sent).toBe(1); // the child paid for the one reply
  return dir;
}

describe("an approve function's answer, given while it is still asked about the reply's next call (real SIGKILL)", () => {
  it("is kept: the resumed turn asks only about the call nobody answered, and the refused refund never runs", async () => {
    const dir = await killedWhileAsking(false);
    const asked: string[] = [];
    const { desk, lm, approve, REFUNDS } = answersDesk(async (a) => {
      asked.push((a.input as { order: string }).order);
      return true;
    }, true);
    const chat = desk.conversation("orders", { store: fsStore(dir, { lockStaleMs: 200 }), lm, approve });
    const [turn] = await chat.turns();
    expect(turn!.state).toBe("interrupted");
    expect(await turn!.resume()).toBe(ANSWER);
    expect(asked).toEqual(["A-2"]); // A-1 was answered (no) before the process died
    expect(REFUNDS).toEqual(["A-2"]);
    expect(lm.requests).toHaveLength(1); // the reply that asked for both was kept, and not paid again
    const results = lm.requests[0]!.messages.flatMap((m) => (m.role === "tool" ? [m.content] : []));
    expect(results).toEqual(["The person did not allow this call. Reason: not A-1: it was never delivered to us", "A-2 refunded"]);
  });

  it("a yes kept there answers only that call: resumed by a changed desk whose reply asks for another refund there, it is asked about", async () => {
    const dir = await killedWhileAsking(true);
    const asked: string[] = [];
    const { desk, lm, approve, REFUNDS } = answersDesk(
      async (a) => {
        asked.push((a.input as { order: string }).order);
        return "not that one";
      },
      true,
      true,
    );
    const [turn] = await desk.conversation("orders", { store: fsStore(dir, { lockStaleMs: 200 }), lm, approve }).turns();
    expect(await turn!.resume()).toBe(ANSWER);
    expect(lm.requests).toHaveLength(2); // the changed desk's first request was sent anew
    expect(asked).toEqual(["A-9"]); // the yes was given to A-1, not to A-9
    expect(REFUNDS).toEqual([]);
  });
});
