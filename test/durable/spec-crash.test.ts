/**
 * The spec's crash example, end to end with a real process: it sends an
 * email and is killed (SIGKILL) right after; another process waits out the
 * lease, finds the turn interrupted with send_email unfinished, is refused
 * a bare resume, and goes on with the result a person gives (one email, not
 * two), or with a rerun (the tool runs again exactly once).
 */
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, ConversationError, tool, type Turn } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { reportReliability } from "./fixtures/reliability.js";
import { fixture, runChild } from "./fixtures/spawn.js";

/** What these tests did, for the suite's reliability figures. */
const done = { sigkills: 0, doubleRuns: 0, repliesPaidTwice: 0 };
afterAll(() => reportReliability("spec crash", done));

const MESSAGE = "Email sam@example.com: the meeting moves to 3pm.";

function assistantIn(sent: string) {
  const sendEmail = tool("send_email", { description: "Send an email.", input: { to: z.string(), text: z.string() }, effects: "changes" }, ({ to, text }) => {
    appendFileSync(sent, `to ${to}: ${text}\n`);
    return "sent";
  });
  return ai("assistant", { description: "Do what the user asks, with the tools.", input: { message: z.string() }, tools: [sendEmail] });
}

/** Kills a child mid-tool, then reads the turn once its lease ran out. */
async function crashed(): Promise<{ store: string; sent: string; turn: () => Promise<Turn>; lm: ReturnType<typeof scripted> }> {
  const store = mkdtempSync(join(tmpdir(), "functai-crash-"));
  const sent = join(store, "sent.txt");
  const end = await runChild(fixture("spec-crash-child.ts"), [store, sent]);
  expect(end.signal, end.stderr).toBe("SIGKILL");
  done.sigkills++;
  expect(readFileSync(sent, "utf8")).toBe("to sam@example.com: The meeting moves to 3pm.\n");
  const lm = scripted([(req) => `The email to sam@example.com has been sent. (${req.messages.at(-1)!.content})`]);
  const chat = assistantIn(sent).conversation("crash", { store, lm });
  const turn = async () => (await chat.turns()).at(-1)!;
  // the turn is running until its lease (ttl 300 ms) runs out
  for (let i = 0; i < 100 && (await turn()).state === "running"; i++) await new Promise((r) => setTimeout(r, 50));
  return { store, sent, turn, lm };
}

describe("When the process dies (spec, real SIGKILL)", () => {
  it("interrupted, send_email unfinished; a bare resume refuses; resume({ results }) finishes with one email", async () => {
    const { sent, turn, lm } = await crashed();
    const t = await turn();
    expect(t.state).toBe("interrupted");
    expect(t.unfinished.map((u) => [u.name, u.invocation, u.input])).toEqual([["send_email", 1, { to: "sam@example.com", text: "The meeting moves to 3pm." }]]);

    const refused = await t.resume().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConversationError);
    expect((refused as ConversationError).code).toBe("turn-unfinished");
    expect((refused as Error).message).toBe(
      `turn ${t.id}: send_email (invocation 1) started and may have run: resume({ results: { 1: <what it returned> } }) or resume({ rerun: [1] })`,
    );

    const answer = await t.resume({ results: { 1: "sent" } });
    expect(answer).toBe("The email to sam@example.com has been sent. (sent)");
    const emails = readFileSync(sent, "utf8").split("\n").filter(Boolean).length;
    done.doubleRuns += Math.max(0, emails - 1);
    done.repliesPaidTwice += Math.max(0, lm.requests.length - 1);
    expect(emails).toBe(1); // one email, not two
    expect(lm.requests).toHaveLength(1); // the reply that asked for send_email was not paid for again
    const after = await turn();
    expect([after.state, after.value, after.unfinished]).toEqual(["done", answer, []]);
  });

  it("resume({ rerun: [1] }) runs the tool again, exactly once more", async () => {
    const { sent, turn, lm } = await crashed();
    const t = await turn();
    expect(t.state).toBe("interrupted");
    expect(await t.resume({ rerun: [1] })).toBe("The email to sam@example.com has been sent. (sent)");
    expect(readFileSync(sent, "utf8").split("\n").filter(Boolean)).toHaveLength(2); // the child's, and the rerun a person asked for
    done.repliesPaidTwice += Math.max(0, lm.requests.length - 1);
    expect(lm.requests).toHaveLength(1);
    expect((await turn()).state).toBe("done");
    // a done turn does not resume again
    await expect(t.resume({ rerun: [1] })).rejects.toMatchObject({ code: "turn-state" });
  });
});
