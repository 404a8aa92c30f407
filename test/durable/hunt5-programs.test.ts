/**
 * Hunt: a program's turn and a delegated program's turn under real crashes
 * and people, across processes on the file store. A child process (see
 * fixtures/hunt5-child.ts) works on the turn and is killed with SIGKILL
 * inside a changing tool's body, or stops because a delegated turn waits for
 * a person; other child processes read, answer and resume the turns. Every
 * changing tool writes one line per run, every model request one line per
 * request (fixtures/hunt5-world.ts), counted over all processes.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import type { Hunt5Config, Hunt5Step } from "./fixtures/hunt5-child.js";
import { lines } from "./fixtures/hunt5-world.js";
import { bundled, fixture, removeBundles, runChild } from "./fixtures/spawn.js";

afterAll(removeBundles);
const LEASE = { renewMs: 50, ttlMs: 300 };

// biome-ignore lint/suspicious/noExplicitAny: each step prints its own JSON shape
type Out = any;

function setup(more: Partial<Hunt5Config> = {}): Hunt5Config {
  const dir = mkdtempSync(join(tmpdir(), "functai-hunt5-"));
  return { dir, effects: join(dir, "effects.log"), requests: join(dir, "requests.log"), lease: LEASE, steps: [], ...more };
}

/** One child process taking `steps` (and dying where its config says): what each step printed, and how it ended. */
async function child(config: Hunt5Config, steps: Hunt5Step[], killIn?: string): Promise<{ outs: Out[]; signal: NodeJS.Signals | null }> {
  const script = await bundled(fixture("hunt5-child.ts"));
  const end = await runChild(script, [JSON.stringify({ ...config, steps, ...(killIn && { killIn }) })]);
  if (end.signal === null) expect(end.code, end.stderr).toBe(0);
  return {
    outs: end.stdout
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Out),
    signal: end.signal,
  };
}

/** The runs of tool `name` (one line each: `<name>:<order>:<idempotencyKey>`). */
const runs = (config: Hunt5Config, name: string): string[] => lines(config.effects).filter((l) => l.startsWith(`${name}:`));

/** Model requests per function, and whether any request (the same function, the same messages) was sent twice. */
function paid(config: Hunt5Config): { byFunction: Record<string, number>; twice: string[] } {
  const all = lines(config.requests);
  const byFunction: Record<string, number> = {};
  for (const l of all) byFunction[l.split("|")[0]!] = (byFunction[l.split("|")[0]!] ?? 0) + 1;
  return { byFunction, twice: all.filter((l, i) => all.indexOf(l) !== i) };
}

describe("a program calling two AI functions in turn, killed inside the second one's changing tool (attack 1)", () => {
  for (const settle of ["results", "rerun"] as const)
    it(`another process finds the second tool unfinished (the first done); once a person settles it (${settle}), the first never runs again and no reply is paid twice`, async () => {
      const config = setup();
      const killed = await child(config, [{ do: "send", conversation: "f", order: "A-1" }], "ship");
      expect(killed.signal).toBe("SIGKILL");
      expect(killed.outs).toEqual([]);
      expect(runs(config, "pay")).toHaveLength(1);
      expect(runs(config, "ship")).toHaveLength(1);
      expect(paid(config).byFunction).toEqual({ first: 2, second: 1 });

      // another process: the turn reads interrupted, the ship unfinished (where it stood), nothing else
      const looked = await child(config, [
        { do: "read", conversation: "f", until: "interrupted" },
        { do: "resume", conversation: "f" },
      ]);
      expect(looked.outs[0]).toEqual({
        state: "interrupted",
        waiting: [],
        unfinished: [{ name: "ship", path: "flow/second/ship", invocation: 1, input: { order: "A-1" } }],
      });
      expect(looked.outs[1]).toMatchObject({ error: "turn-unfinished" });
      expect(looked.outs[1].message).toMatch(/ship \(invocation 1\) started and may have run/);
      expect(paid(config).byFunction).toEqual({ first: 2, second: 1 }); // refusing paid nothing and ran nothing
      expect(runs(config, "pay")).toHaveLength(1);
      expect(runs(config, "ship")).toHaveLength(1);

      // a third process settles it and goes on
      const answer = settle === "results" ? { results: { 1: "shipped by hand" } } : { rerun: [1] };
      const resumed = await child(config, [
        { do: "resume", conversation: "f", ...answer },
        { do: "read", conversation: "f" },
      ]);
      const shipSaid = settle === "results" ? "shipped by hand" : "ship done for A-1";
      expect(resumed.outs[0]).toEqual({ ok: `first heard: pay done for A-1 | second heard: ${shipSaid}` });
      expect(resumed.outs[1]).toMatchObject({ state: "done", unfinished: [] });
      expect(runs(config, "pay")).toHaveLength(1); // the first tool never ran again
      // a rerun runs the ship once more, as the person asked, with the same idempotency key
      const ships = runs(config, "ship");
      expect(ships).toHaveLength(settle === "results" ? 1 : 2);
      expect(new Set(ships).size).toBe(1);
      const { byFunction, twice } = paid(config);
      expect(twice).toEqual([]);
      expect(byFunction).toEqual({ first: 2, second: 2 }); // the second's answer is the only request the resume paid

      // and a fourth process finds nothing left to do: resuming a done turn is refused, nothing runs
      const after = await child(config, [{ do: "resume", conversation: "f" }]);
      expect(after.outs[0]).toMatchObject({ error: "turn-state" });
      expect(lines(config.requests)).toHaveLength(4);
      expect(runs(config, "ship")).toHaveLength(settle === "results" ? 1 : 2);
    });
});

/** The turns a conversation holds (each its `turn` record). */
const turnsIn = async (config: Hunt5Config, conversation: string): Promise<number> =>
  (await fsStore(config.dir).read(conversation)).filter((r) => r.kind === "turn").length;

describe("a delegated program whose turn waits for a person's approval (attack 2)", () => {
  it("the caller stops, resumable; a person answers the delegated turn from another process; the caller's resume takes its answer: the charge runs once, each step paid once", async () => {
    const config = setup({ approve: "changes" });
    const sent = await child(config, [
      { do: "send", conversation: "d", order: "A-1" },
      { do: "read", conversation: "d" },
      { do: "read", conversation: "d.billing" },
    ]);
    // the caller's send says the delegated turn waits (code turn-waiting), naming the conversation to answer it in
    expect(sent.outs[0]).toMatchObject({ error: "turn-waiting" });
    expect(sent.outs[0].message).toMatch(/conversation d\.billing needs a person first .*billing\/clerk\/charge/);
    // the caller's turn is let go (nothing of it waits: it is answered in the delegated conversation)
    expect(sent.outs[1]).toEqual({ state: "interrupted", waiting: [], unfinished: [] });
    expect(sent.outs[2]).toEqual({ state: "waiting", waiting: [{ name: "charge", path: "billing/clerk/charge", invocation: 1 }], unfinished: [] });
    expect(runs(config, "charge")).toEqual([]);
    expect(paid(config).byFunction).toEqual({ desk: 1, clerk: 1 });

    // before anyone answers: resuming the caller pays nothing, sends no second delegated turn; its own handle has nothing to approve
    const early = await child(config, [
      { do: "resume", conversation: "d" },
      { do: "approve", conversation: "d", by: "maria" },
      { do: "resume", conversation: "d", results: { 1: "charged" } },
      { do: "read", conversation: "d.billing" },
    ]);
    expect(early.outs[0]).toMatchObject({ error: "turn-waiting" });
    expect(early.outs[1]).toMatchObject({ error: "turn-state" });
    expect(early.outs[2]).toMatchObject({ error: "input-invalid" }); // the delegate call is not a tool a person settles
    expect(early.outs[3]).toMatchObject({ state: "waiting" });
    expect(paid(config).byFunction).toEqual({ desk: 1, clerk: 1 });
    expect(await turnsIn(config, "d.billing")).toBe(1);

    // a person answers the delegated turn from another process: it goes on there
    const answered = await child(config, [
      { do: "approve", conversation: "d.billing", by: "maria" },
      { do: "read", conversation: "d" },
    ]);
    expect(answered.outs[0]).toEqual({ ok: "billing says clerk heard: charge done for A-1" });
    expect(answered.outs[1]).toMatchObject({ state: "interrupted" }); // the caller goes on only when resumed
    expect(runs(config, "charge")).toHaveLength(1);

    const resumed = await child(config, [{ do: "resume", conversation: "d" }]);
    expect(resumed.outs[0]).toEqual({ ok: "desk heard: billing says clerk heard: charge done for A-1" });
    expect(runs(config, "charge")).toHaveLength(1);
    const { byFunction, twice } = paid(config);
    expect(twice).toEqual([]);
    expect(byFunction).toEqual({ desk: 2, clerk: 2 });
    expect(await turnsIn(config, "d.billing")).toBe(1);
  });

  // Found open by this hunt, fixed by hunt 31: the caller's send rejected with a FunctaiError coded turn-waiting
  // that was not a `Waiting` (no `turn`, no `approvals`), so code following the README (`if (!(e instanceof
  // Waiting)) throw e;`) rethrew it. It is a `Waiting` now (src/conversation/waiting.ts delegatedWaiting, made in
  // src/conversation/driver.ts stoppedFor from what src/functions/delegate.ts keeps on its NeedsPerson): its `turn`
  // is the caller's (interrupted: the one to resume once they are answered; approving it is refused, as above), its
  // `approvals` the delegated turn's, and `delegated` names the conversation and turn they wait in. In-process
  // cases (a stream, a busy sibling call, two levels down): test/conversation/hunt31-delegated-waiting.test.ts.
  it("the caller's send rejects with a Waiting that lists the delegated turn's approvals", async () => {
    const config = setup({ approve: "changes" });
    const sent = await child(config, [{ do: "send", conversation: "d", order: "A-1" }]);
    expect(sent.outs[0]).toMatchObject({ error: "turn-waiting", isWaiting: true, approvals: [{ name: "charge", path: "billing/clerk/charge" }] });
  });
});

describe("a delegated program killed inside its changing tool (attack 3)", () => {
  it("both turns read interrupted (the tool unfinished in the delegated one); resuming the caller never reruns the tool; settled there, the caller goes on paying only its answer", async () => {
    const config = setup();
    const killed = await child(config, [{ do: "send", conversation: "d", order: "A-1" }], "charge");
    expect(killed.signal).toBe("SIGKILL");
    expect(runs(config, "charge")).toHaveLength(1);
    expect(paid(config).byFunction).toEqual({ desk: 1, clerk: 1 });

    const looked = await child(config, [
      { do: "read", conversation: "d", until: "interrupted" },
      { do: "read", conversation: "d.billing", until: "interrupted" },
      { do: "resume", conversation: "d" },
      { do: "resume", conversation: "d", rerun: [1] },
      { do: "read", conversation: "d" },
      { do: "read", conversation: "d.billing" },
    ]);
    expect(looked.outs[0]).toEqual({ state: "interrupted", waiting: [], unfinished: [] });
    const unfinished = [{ name: "charge", path: "billing/clerk/charge", invocation: 1, input: { order: "A-1" } }];
    expect(looked.outs[1]).toEqual({ state: "interrupted", waiting: [], unfinished });
    expect(looked.outs[2]).toMatchObject({ error: "turn-unfinished" });
    expect(looked.outs[2].message).toMatch(/conversation d\.billing .*charge \(invocation 1\) started and may have run/);
    expect(looked.outs[3]).toMatchObject({ error: "input-invalid" }); // a rerun asked of the caller names none of its tools
    expect(looked.outs[4]).toMatchObject({ state: "interrupted", unfinished: [] }); // still resumable
    expect(looked.outs[5]).toEqual({ state: "interrupted", waiting: [], unfinished });
    expect(runs(config, "charge")).toHaveLength(1); // never rerun on its own
    expect(paid(config).byFunction).toEqual({ desk: 1, clerk: 1 });
    expect(await turnsIn(config, "d.billing")).toBe(1);

    const settled = await child(config, [{ do: "resume", conversation: "d.billing", results: { 1: "charged by hand" } }]);
    expect(settled.outs[0]).toEqual({ ok: "billing says clerk heard: charged by hand" });
    const resumed = await child(config, [{ do: "resume", conversation: "d" }]);
    expect(resumed.outs[0]).toEqual({ ok: "desk heard: billing says clerk heard: charged by hand" });
    expect(runs(config, "charge")).toHaveLength(1);
    const { byFunction, twice } = paid(config);
    expect(twice).toEqual([]);
    expect(byFunction).toEqual({ desk: 2, clerk: 2 });
    expect(await turnsIn(config, "d.billing")).toBe(1);
  });

  it("the delegated turn abandoned by a person instead: the caller's resume tells its model so, running and sending nothing again", async () => {
    const config = setup();
    expect((await child(config, [{ do: "send", conversation: "d", order: "A-1" }], "charge")).signal).toBe("SIGKILL");
    const after = await child(config, [
      { do: "read", conversation: "d.billing", until: "interrupted" },
      { do: "abandon", conversation: "d.billing" },
      { do: "resume", conversation: "d" },
    ]);
    expect(after.outs[1]).toEqual({ ok: "abandoned" });
    expect(after.outs[2].ok).toMatch(/^desk heard: Error: .*abandoned/);
    expect(runs(config, "charge")).toHaveLength(1);
    const { byFunction, twice } = paid(config);
    expect(twice).toEqual([]);
    expect(byFunction).toEqual({ desk: 2, clerk: 1 });
    expect(await turnsIn(config, "d.billing")).toBe(1);
  });
});
