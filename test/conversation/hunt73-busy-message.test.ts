/**
 * `conversation-busy` says what to do, naming the turn. While the head waits
 * for a person it says to answer it; once every approval is answered but the
 * turn still reads waiting (the process that took the answers stopped before
 * it went on with the turn), there is nothing to answer: it says to resume it.
 * It said "answer it first" either way, and listed no approval in the second.
 */
import { payDesk } from "./fixtures/pay-desk.js";
import { describe, expect, it } from "vitest";
import { memoryStore, Waiting } from "../../src/index.js";
import { faultyStore, scripted } from "../../src/testing/index.js";

function world() {
  const { d: desk, paid } = payDesk();
  return { desk, paid };
}

describe("conversation-busy's message", () => {
  it("while the head waits for a person: answer it, naming the turn and what waits", async () => {
    const { desk } = world();
    const store = memoryStore();
    const chat = desk.conversation("c", { store, lm: scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }]), approve: "changes" });
    const waiting = (await chat.send("pay 5").catch((e: unknown) => e)) as Waiting;
    expect(waiting).toBeInstanceOf(Waiting);
    const refused = await chat.send("and another").catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "conversation-busy" });
    const message = (refused as Error).message;
    expect(message).toContain(waiting.turn.id);
    expect(message).toContain("desk/pay");
    expect(message).toMatch(/approve\(|deny\(/);
  });

  it("every approval answered, the turn not gone on (its process stopped): resume it, not answer it", async () => {
    const { desk, paid } = world();
    const inner = memoryStore();
    // the claim after the person's answer is refused: the yes is kept, the turn still reads waiting with nothing to answer
    let refuseClaim = false;
    const store = faultyStore(inner, {
      failOn: (call) => (refuseClaim && call.records.some((r) => (r as { kind?: string }).kind === "lease") ? "before-write" : undefined),
    });
    const lm = scripted([{ toolCalls: [{ name: "pay", input: { amount: 5 } }] }, "paid"]);
    const chat = desk.conversation("c", { store, lm, approve: "changes" });
    const waiting = (await chat.send("pay 5").catch((e: unknown) => e)) as Waiting;
    expect(waiting).toBeInstanceOf(Waiting);
    refuseClaim = true;
    await expect(waiting.turn.approve({ id: waiting.approvals[0]!.id, by: "maria" })).rejects.toMatchObject({ code: "store-io" });
    refuseClaim = false;
    const [turn] = await chat.turns();
    expect([turn!.state, turn!.waiting]).toEqual(["waiting", []]);

    const refused = await chat.send("and another").catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "conversation-busy" });
    const message = (refused as Error).message;
    expect(message).toContain(turn!.id);
    expect(message).not.toMatch(/answer it first/);
    expect(message).toMatch(/resume\(\)/);
    // and what it says works: resumed, the turn goes on with the yes given, and the conversation takes the next send
    expect(await turn!.resume()).toBe("paid");
    expect(paid).toEqual([5]);
  });
});
