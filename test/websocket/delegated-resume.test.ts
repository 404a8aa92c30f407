/**
 * A companion resumes an interrupted turn with a result, and the turn goes
 * on into a delegated program whose own turn then waits for a person. The
 * approvals wait in the delegated conversation (`sam.billing`), not in the
 * resumed turn: the reply says the resumed turn is interrupted, with the
 * error naming where to answer, never "waiting" with approvals the companion
 * would answer in the wrong turn (refused there, approval-unknown).
 */
import { expect, it } from "vitest";
import { z } from "zod";
import { connect, serve } from "../../adapters/websocket/index.js";
import { ai, delegate, tool } from "../../src/index.js";
import { faultyStore, memoryStore, scripted } from "../../src/testing/index.js";
import { keeper } from "./fixtures.js";

const keep = keeper();

const isNoteDone = (r: object): boolean => {
  const t = r as { kind?: string; state?: string; name?: string };
  return t.kind === "tool" && t.state === "done" && t.name === "note";
};

it("a resume with results whose turn goes on into a delegated turn that waits: told interrupted, naming the delegated conversation", async () => {
  const CHARGES: string[] = [];
  const note = tool("note", { description: "Note it.", input: { text: z.string() }, effects: "changes" }, () => "noted");
  const charge = tool("charge", { description: "Charge.", input: { order: z.string() }, effects: "changes" }, ({ order }) => {
    CHARGES.push(order);
    return `charged ${order}`;
  });
  const billing = ai("billing", { description: "Billing.", input: { request: z.string() }, tools: [charge] });
  const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [note, delegate(billing)] });
  const lm = scripted([
    { toolCalls: [{ name: "note", input: { text: "A-1" } }] }, // desk, before its process "dies"
    { toolCalls: [{ name: "billing", input: { request: "A-1" } }] }, // desk, resumed
    { toolCalls: [{ name: "charge", input: { order: "A-1" } }] }, // billing: waits for the charge's approval
    "never",
  ]);
  const inner = memoryStore();
  const served = desk.using({ lm });
  // the note ran, and the process "died" before its result was kept: interrupted, the note unfinished
  const crashing = faultyStore(inner, { crash: true, failOn: (call) => (call.records.some(isNoteDone) ? "before-write" : undefined) });
  await served
    .conversation("sam", { store: crashing, lease: { renewMs: 20, ttlMs: 60 } })
    .send("Charge A-1.")
    .catch(() => undefined);

  const server = keep(await serve({ store: inner, programs: [served], port: 0, pollMs: 20, settings: { approve: ["charge"] } }));
  const app = keep(await connect(server.url));
  const [turn] = await served.conversation("sam", { store: inner }).turns();
  await new Promise((r) => setTimeout(r, 100)); // (its lease lapsed: it reads interrupted)
  const told = await Promise.resolve(app.resume({ conversation: "sam", turn: turn!.id, results: { 1: "noted" } })).catch((e: unknown) => e);
  expect(told).toMatchObject({ code: "turn-waiting", message: expect.stringContaining("conversation sam.billing") });
  expect((told as { approvals?: unknown[] }).approvals ?? []).toEqual([]);
  expect((await app.status({ conversation: "sam", turn: turn!.id })).state).toBe("interrupted");
  const [waits] = await billing.conversation("sam.billing", { store: inner }).turns();
  expect(waits!.state).toBe("waiting");
  expect(waits!.waiting.map((a) => a.name)).toEqual(["charge"]);
  expect(CHARGES).toEqual([]);
});
