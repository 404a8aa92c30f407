/**
 * Hunt 68: a plain stream's answers. An approval already answered one way
 * and then answered the other way (`s.approve({ id })`, then
 * `s.deny(reason, { id })`) was taken without a word and dropped: the caller
 * believed the refund refused while it ran. Over the WebSocket wire such an
 * answer is refused (`approval-answered`); in process it is refused the same
 * way now (the same answer given again still changes nothing). And answer
 * options with a key that is none of `id` and `by` (`{ ID: … }`, `{ ids: … }`)
 * were read as "no id": a yes meant for one approval said yes to all of them.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { deskTools, echoLast, toolResults } from "../engine/fixtures.js";
import { twoAsks } from "./fixtures.js";

const codeOf = (e: unknown): unknown => (e as { code?: unknown }).code;

/** The two asks, then what the model saw of each tool. */
const twoAnswers = () =>
  twoAsks(
    (request) =>
      `saw: ${toolResults(request)
        .map(([name, content]) => `${name}=${content}`)
        .join(" | ")}`,
  );

describe("a plain stream: an approval answered one way, then the other", () => {
  it("approve({ id }) then deny(reason, { id }) while another approval waits: the deny is refused (approval-answered); the yes stands", async () => {
    const { fn, t, lm } = twoAnswers();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    const refusals: unknown[] = [];
    for await (const e of s) {
      if (e.type !== "waiting") continue;
      const [refund, note] = e.approvals;
      await s.approve({ id: refund!.id });
      refusals.push(await s.deny("changed my mind", { id: refund!.id }).then(() => "taken", codeOf));
      await s.approve({ id: refund!.id }); // the same answer again changes nothing, as before
      await s.deny("no notes", { id: note!.id });
    }
    expect(refusals).toEqual(["approval-answered"]);
    expect(await s).toBe("saw: refund=refunded 39 for A-1 | note=The person did not allow this call. Reason: no notes");
    expect(t.REFUNDS).toEqual([["A-1", 39]]);
  });

  it("approve({ id }) of the only approval, then deny(reason, { id }): refused (approval-answered), not dropped", async () => {
    const t = deskTools();
    const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: [t.refund] });
    const lm = scripted([{ toolCalls: [{ name: "refund", input: { order_id: "A-1", amount: 39 } }] }, echoLast]);
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    let refused: unknown;
    for await (const e of s) {
      if (e.type !== "approval") continue;
      await s.approve({ id: e.approval.id });
      refused = await s.deny("stop", { id: e.approval.id }).then(() => "taken", codeOf);
    }
    expect(refused).toBe("approval-answered");
    expect(await s).toBe("saw: refunded 39 for A-1");
  });

  it("deny() of all, then approve() of all: refused (approval-answered)", async () => {
    const { fn, t, lm } = twoAnswers();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    let refused: unknown;
    for await (const e of s) {
      if (e.type !== "waiting") continue;
      await s.deny("not today");
      refused = await s.approve().then(() => "taken", codeOf);
    }
    expect(refused).toBe("approval-answered");
    expect(await s).toContain("The person did not allow this call. Reason: not today");
    expect(t.REFUNDS).toEqual([]);
  });
});

describe("answer options with a key that is no option", () => {
  it.each([
    ["approve", { ID: "x" }],
    ["approve", { ids: ["x"] }],
    ["deny", { reasn: "no" }],
  ] as const)("a plain stream's %s(%o) is refused (input-invalid); nothing is answered", async (method, options) => {
    const { fn, t, lm } = twoAnswers();
    const s = fn.stream("Refund A-1", { lm, approve: "changes" });
    let refused: unknown;
    for await (const e of s) {
      if (e.type !== "waiting") continue;
      const answer = method === "approve" ? s.approve(options as never) : s.deny("no", options as never);
      refused = await answer.then(() => "taken", codeOf);
      expect(s.pending).toHaveLength(2); // nothing answered: both still wait
      await s.deny("done here");
    }
    expect(refused).toBe("input-invalid");
    await s;
    expect(t.REFUNDS).toEqual([]);
  });

  it("a conversation stream's approve({ Id }) is refused (input-invalid); nothing is recorded", async () => {
    const { fn, t, lm } = twoAnswers();
    const store = memoryStore();
    const s = fn.conversation("c", { store, lm, approve: "changes" }).stream("Refund A-1");
    let refused: unknown;
    for await (const e of s) {
      if (e.type !== "waiting") continue;
      refused = await s.approve({ Id: e.approvals[0]!.id } as never).then(() => "taken", codeOf);
      break;
    }
    expect(refused).toBe("input-invalid");
    await expect(s).rejects.toMatchObject({ code: "turn-waiting" });
    expect((await store.read("c")).filter((r) => r.kind === "approval")).toEqual([]);
    expect(t.REFUNDS).toEqual([]);
  });
});
