/**
 * Durable before paying, with real processes: a child is killed (SIGKILL)
 * at random points inside its model calls (seeded: FUNCTAI_SEED repeats a
 * run): with a request in flight, or just after a reply came back. Every
 * reply that had come back before the child sent its last request is on
 * disk, so resuming never asks for it again: only the request in flight
 * when the child died may be asked again.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { ANSWER, CALLS, deskModel, fingerprint, replyCrashDesk, STEPS } from "./fixtures/reply-crash.js";
import { reportReliability } from "./fixtures/reliability.js";
import { rng } from "./fixtures/rng.js";
import { bundled, fixture, pool, removeBundles, runChild } from "./fixtures/spawn.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
afterAll(removeBundles);

interface Kill {
  call: number;
  phase: "in-flight" | "arrived";
  afterMs: number;
}

/** What the child's model log says: requests in the order they went out, and the replies that came back before the last one did. */
function paidFor(dir: string): { sent: string[]; kept: Set<string> } {
  const lines = readFileSync(join(dir, "model.log"), "utf8").split("\n").filter(Boolean);
  const last = lines.map((l) => l.startsWith("sent ")).lastIndexOf(true);
  const kept = new Set(
    lines
      .slice(0, last)
      .filter((l) => l.startsWith("arrived "))
      .map((l) => l.slice(8)),
  );
  return { sent: lines.filter((l) => l.startsWith("sent ")).map((l) => l.slice(5)), kept };
}

/** Kills a child at `kill`, then finishes its turn in this process: what this process asked the model. */
async function killThenResume(child: string, kill: Kill) {
  const dir = mkdtempSync(join(tmpdir(), "functai-reply-crash-"));
  const end = await runChild(child, [dir, "orders", JSON.stringify(kill)]);
  expect(end.signal, end.stderr).toBe("SIGKILL");
  const asked: string[] = [];
  const lm = deskModel({ sent: (request) => void asked.push(fingerprint(request)) });
  const chat = replyCrashDesk().conversation("orders", { store: fsStore(dir, { lockStaleMs: 200 }), lm, lease: { renewMs: 50, ttlMs: 200 } });
  let turn = (await chat.turns()).at(-1)!;
  for (let i = 0; i < 50 && turn.state === "running"; i++) await sleep(50), (turn = (await chat.turns()).at(-1)!);
  const answer = turn.state === "done" ? turn.value : await turn.resume();
  return { answer, asked, ...paidFor(dir) };
}

describe("a reply that arrived is never paid again (real SIGKILL inside model calls)", () => {
  it("killed at random points in its model calls: the resume asks only for what was in flight and after, never for a reply that had come back", async () => {
    const seed = Number(process.env.FUNCTAI_SEED ?? Date.now() % 1_000_000);
    const r = rng(seed);
    // the first kill is the fixed point the test began with: in the second call, after a reading tool
    const kills: Kill[] = [{ call: 2, phase: "in-flight", afterMs: 0 }];
    for (let i = 0; i < 9; i++)
      kills.push(r(2) === 0 ? { call: 1 + r(CALLS), phase: "in-flight", afterMs: r(20) } : { call: 1 + r(STEPS), phase: "arrived", afterMs: r(30) });
    const child = await bundled(fixture("reply-crash-child.ts"));
    const runs = await pool(
      kills.map((kill) => () => killThenResume(child, kill)),
      2,
    );
    let paidTwice = 0;
    let askedAgain = 0;
    for (const [i, { answer, asked, sent, kept }] of runs.entries()) {
      const where = `kill ${JSON.stringify(kills[i])} (seed ${seed}): the child sent ${sent.length}, this process asked ${asked.length}`;
      expect(answer, where).toBe(ANSWER);
      paidTwice += asked.filter((h) => kept.has(h)).length;
      expect(
        asked.filter((h) => kept.has(h)),
        where,
      ).toEqual([]); // no reply that had come back is asked for again
      const again = asked.filter((h) => sent.includes(h));
      askedAgain += again.length;
      expect(again.length, where).toBeLessThanOrEqual(1); // only the request in flight when the child died
      expect(new Set([...sent, ...asked]).size, where).toBe(CALLS); // the same requests as a crash-free turn, each answered
      // killed in flight in call k: the child sent k requests; the resume starts with the k-th and asks for the rest
      const { call, phase } = kills[i]!;
      if (phase === "in-flight") expect([sent.length, asked[0], asked.length], where).toEqual([call, sent[call - 1], CALLS - call + 1]);
    }
    console.log(
      `reply crash: ${kills.length} children killed with SIGKILL inside model calls, ${askedAgain} requests in flight asked again, ${paidTwice} replies paid twice (seed ${seed})`,
    );
    reportReliability("reply crash", { sigkills: kills.length, repliesPaidTwice: paidTwice });
  });
});
