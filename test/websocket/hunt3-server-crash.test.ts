/**
 * The serving process killed (SIGKILL) or paused (SIGSTOP) at an exact
 * moment of an approved turn, then another `serve()` on the same folder:
 * the turn is listed as it is, a person's answer through the second server
 * finishes it once, and the refund never runs twice, nor a reply is paid
 * twice. The first server runs in a child (children/hunt3-server.ts), whose
 * every refund and paid reply is written to a file the test counts.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { connect, serve } from "../../adapters/websocket/index.js";
import { readConversation } from "../../src/index.js";
import { spawnScript, type Child } from "../store/fs-children.js";
import { keeper, until, waitingDesk } from "./fixtures.js";

const keep = keeper();
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
    await c.exited;
  }
});

const SERVER = fileURLToPath(new URL("./children/hunt3-server.ts", import.meta.url));

/** A folder with conversation "sam" waiting for the refund's approval, and the first server on it in a child. */
async function setup(mode: "kill-in-tool" | "kill-after-answer" | "stop-after-answer") {
  const dir = mkdtempSync(join(tmpdir(), "functai-hunt3-"));
  const effects = join(dir, "..", `${dir.split("/").at(-1)}-effects.log`);
  const first = await waitingDesk(["sam"], { store: fsStore(dir) });
  const child = spawnScript(SERVER, [dir, effects, mode]);
  children.push(child);
  const url = (await child.line((l) => l.startsWith("url "))).slice(4);
  const count = (what: string): number => (existsSync(effects) ? readFileSync(effects, "utf8").split("\n").filter((l) => l.startsWith(`${what} `)).length : 0);
  return { dir, first, child, url, count };
}

/** Whether a process is stopped (its state in /proc is T). */
const isStopped = (pid: number): boolean => / T /.test(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\)/, ")"));

/** The second server on the same folder: its own program and model (another process, as far as the store can tell). */
async function secondServer(dir: string, answeredGraceMs = 30_000) {
  const second = await waitingDesk([], { store: fsStore(dir) });
  const server = keep(await serve({ store: second.store, programs: [second.served], port: 0, pollMs: 20, answeredGraceMs }));
  const app = keep(await connect(server.url));
  return { ...second, server, app };
}

const DONE = "The last tool said: refunded 39.00 for A-1042";

describe("the serving process killed or paused in an approved turn", () => {
  it("SIGKILLed while the approved refund runs: another serve() lists it interrupted with the refund unfinished; a person's result finishes it, the refund never runs again", async () => {
    const { dir, first, child, url, count } = await setup("kill-in-tool");
    const app1 = keep(await connect(url, { reconnect: false }));
    const [w] = await app1.waiting();
    const approved = Promise.resolve(app1.approve({ conversation: "sam", turn: w!.turn, by: "maria" })).then(() => null, (e: unknown) => e);
    await child.saw((l) => l === "refund-start");
    child.proc.kill("SIGKILL");
    await child.exited;
    expect(await approved).toMatchObject({ code: "remote-closed" }); // never silence: the call in flight ends
    expect(count("refund")).toBe(1);
    expect(count("paid")).toBe(0); // the refund's call was kept before the wait: nothing was asked again after the yes

    const second = await secondServer(dir);
    await until(async () => (await second.app.waiting()).length === 1, 8000); // (its lease runs out within a second)
    const [listed] = await second.app.waiting();
    expect(listed).toMatchObject({ conversation: "sam", turn: w!.turn, state: "interrupted", approvals: [] });
    expect(listed!.unfinished.map((u) => [u.invocation, u.name, u.input])).toEqual([[2, "refund", { order_id: "A-1042", amount: 39 }]]);
    // the yes given before cannot be given again, nor the turn gone on without saying what the refund did
    await expect(Promise.resolve(second.app.approve({ conversation: "sam", turn: w!.turn }))).rejects.toMatchObject({ code: "approval-answered" });
    await expect(Promise.resolve(second.app.resume({ conversation: "sam", turn: w!.turn }))).rejects.toMatchObject({ code: "turn-unfinished" });
    expect(await second.app.resume({ conversation: "sam", turn: w!.turn, results: { 2: "refunded 39.00 for A-1042" } })).toBe(DONE);
    // the same answer sent again (a retry) is refused, and runs nothing
    const again = await Promise.resolve(second.app.resume({ conversation: "sam", turn: w!.turn, results: { 2: "refunded 39.00 for A-1042" } })).then(() => null, (e: unknown) => e);
    expect(again).toMatchObject({ code: expect.stringMatching(/^(turn-state|approval-answered)$/) });
    expect(count("refund")).toBe(1);
    expect(first.REFUNDS.length + second.REFUNDS.length).toBe(0);
    expect(second.lm.requests).toHaveLength(1); // only the answer after the refund: nothing before it paid again
    expect(await second.app.waiting()).toEqual([]);
    const turn = readConversation(await second.store.read("sam"), { now: Date.now() }).turns.get(w!.turn)!;
    expect([turn.state, turn.answers.length]).toEqual(["done", 1]);
  }, 25_000);

  it("SIGKILLed right after the yes was kept, before the turn was claimed: listed for a resume after the grace; a second yes is refused; the resume runs the refund once", async () => {
    const { dir, child, url, count } = await setup("kill-after-answer");
    const app1 = keep(await connect(url, { reconnect: false }));
    const [w] = await app1.waiting();
    const approved = Promise.resolve(app1.approve({ conversation: "sam", turn: w!.turn, by: "maria" })).then(() => null, (e: unknown) => e);
    await child.exited;
    expect(child.lines).toContain("answered");
    expect(await approved).toMatchObject({ code: "remote-closed" });

    const second = await secondServer(dir, 300);
    await until(async () => (await second.app.waiting()).length === 1, 8000);
    expect((await second.app.waiting())[0]).toMatchObject({ conversation: "sam", turn: w!.turn, state: "interrupted", approvals: [], unfinished: [] });
    // a person who did not see the first answer says yes again: refused, nothing runs
    await expect(Promise.resolve(second.app.approve({ conversation: "sam", turn: w!.turn, by: "ana" }))).rejects.toMatchObject({ code: "approval-answered" });
    expect(second.REFUNDS).toHaveLength(0);
    expect(await second.app.resume({ conversation: "sam", turn: w!.turn })).toBe(DONE);
    expect(second.REFUNDS).toHaveLength(1);
    expect(count("refund")).toBe(0);
    expect(count("paid")).toBe(0);
    expect(second.lm.requests).toHaveLength(1);
    const turn = readConversation(await second.store.read("sam"), { now: Date.now() }).turns.get(w!.turn)!;
    expect(turn.answers.map((a) => [a.verdict, a.by])).toEqual([["yes", "maria"]]);
  }, 25_000);

  it("SIGSTOPped right after the yes was kept: another server resumes it (the refund runs there); woken, the first does not run it nor pay for a reply, and its companion is told", async () => {
    const { dir, child, url, count } = await setup("stop-after-answer");
    const app1 = keep(await connect(url, { reconnect: false }));
    const [w] = await app1.waiting();
    const s1 = app1.approve({ conversation: "sam", turn: w!.turn, by: "maria" });
    const approved = Promise.resolve(s1).then((v) => ({ v }), (e: unknown) => ({ e }));
    await child.saw((l) => l === "answered");
    await until(() => isStopped(child.proc.pid!), 5000);

    const second = await secondServer(dir, 300);
    await until(async () => (await second.app.waiting()).length === 1, 8000);
    expect(await second.app.resume({ conversation: "sam", turn: w!.turn })).toBe(DONE);
    expect(second.REFUNDS).toHaveLength(1);

    child.proc.kill("SIGCONT");
    const settled = await Promise.race([approved, new Promise((r) => setTimeout(() => r("hang"), 10_000))]);
    // the first server's claim meets the second's: a coded refusal, never the turn's value as if it had run it
    expect(settled).toMatchObject({ e: { code: expect.stringMatching(/^(turn-claimed|turn-state)$/) } });
    // and its outcome does not call the turn interrupted (a person would resume it): it went on elsewhere
    expect((await s1.outcome).state).toBe("running");
    expect(count("refund")).toBe(0);
    expect(count("paid")).toBe(0);
    const turn = readConversation(await second.store.read("sam"), { now: Date.now() }).turns.get(w!.turn)!;
    expect([turn.state, turn.answers.length, turn.attempt]).toEqual(["done", 1, 2]);
    expect(child.proc.exitCode).toBeNull(); // and it serves on
    expect(await app1.waiting()).toEqual([]);
  }, 25_000);
});
