/**
 * What a changing tool returned is written before the next paid request: a
 * process killed (SIGKILL) while that request is in flight (the usual place
 * to die: a model call takes seconds) leaves the tool done with its result,
 * so another process goes on with the turn without a person, and runs no
 * tool twice.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ANSWER, STEPS, refundDesk, refundModel } from "./fixtures/done-crash.js";
import { reportReliability } from "./fixtures/reliability.js";
import { bundled, fixture, removeBundles, runChild } from "./fixtures/spawn.js";

afterAll(removeBundles);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe("a changing tool's result is on disk before the next request (real SIGKILL in that request)", () => {
  for (let call = 2; call <= STEPS + 1; call++) {
    it(`killed in model call ${call}: the refunds before it are done, and another process goes on without a person`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "functai-done-crash-"));
      const end = await runChild(await bundled(fixture("done-crash-child.ts")), [dir, "orders", String(call)]);
      expect(end.signal, end.stderr).toBe("SIGKILL");
      const refunds = () => readFileSync(join(dir, "refunds.log"), "utf8").split("\n").filter(Boolean);
      expect(refunds()).toEqual(Array.from({ length: call - 1 }, (_, k) => `A-${k + 1}`));

      const chat = refundDesk(dir).conversation("orders", { store: fsStore(dir, { lockStaleMs: 200 }), lm: refundModel(), lease: { renewMs: 50, ttlMs: 200 } });
      let turn = (await chat.turns()).at(-1)!;
      for (let i = 0; i < 50 && turn.state === "running"; i++) await sleep(50), (turn = (await chat.turns()).at(-1)!);
      expect(turn.state).toBe("interrupted");
      expect(turn.unfinished).toEqual([]); // every refund that ran is done, with what it returned
      expect(await turn.resume()).toBe(ANSWER);
      expect(refunds()).toEqual(["A-1", "A-2", "A-3"]); // each once
      reportReliability("done crash", { sigkills: 1, doubleRuns: refunds().length - new Set(refunds()).size });
    });
  }
});
