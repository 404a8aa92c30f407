/**
 * `connect` from `functai/websocket` inside real Chromium (the browser entry,
 * on the page's own WebSocket), against a Node server started by the
 * project's global setup (ws-server.setup.ts): two turns wait for a refund.
 */
import { describe, expect, inject, it } from "vitest";
import { connect } from "functai/websocket";

describe("a companion in Chromium", () => {
  it("runs on the browser entry: the page's WebSocket, no Node modules", async () => {
    expect(typeof window).toBe("object");
    const app = await connect(inject("functaiWsUrl"), { key: "k1" });
    try {
      // the list is pushed after the hello, and kept current in `last`
      const pushed = new Promise<readonly { conversation: string }[]>((resolve) => {
        if (app.last.length > 0) resolve(app.last);
        else app.on("waiting", resolve);
      });
      expect((await pushed).map((w) => w.conversation)).toEqual(["ana", "sam"]);
    } finally {
      await app.close();
    }
  });

  it("lists the waiting turns, approves one and streams it to its answer; denies the other with a reason the model sees", async () => {
    const app = await connect(inject("functaiWsUrl"), { key: "k1" });
    try {
      const waiting = await app.waiting();
      expect(waiting.map((w) => [w.conversation, w.state, w.approvals.map((a) => [a.name, a.input])])).toEqual([
        ["ana", "waiting", [["refund", { order_id: "A-1042", amount: 39 }]]],
        ["sam", "waiting", [["refund", { order_id: "A-1042", amount: 39 }]]],
      ]);
      const sam = waiting.find((w) => w.conversation === "sam")!;
      const s = app.approve({ conversation: "sam", turn: sam.turn, by: "maria" });
      const types: string[] = [];
      for await (const e of s) types.push(e.type);
      expect(await s).toBe("The last tool said: refunded 39.00 for A-1042");
      expect(types).toContain("tool_result");

      const ana = waiting.find((w) => w.conversation === "ana")!;
      expect(await app.deny({ conversation: "ana", turn: ana.turn, reason: "not today", by: "maria" })).toBe(
        "The last tool said: The person did not allow this call. Reason: not today",
      );
      expect(await app.waiting()).toEqual([]);
      // answered already: a second answer is refused with its code
      await expect(app.approve({ conversation: "sam", turn: sam.turn, by: "maria" })).rejects.toMatchObject({ code: "approval-answered" });
    } finally {
      await app.close();
    }
  });

  it("a wrong key is refused", async () => {
    await expect(connect(inject("functaiWsUrl"), { key: "not-a-key" })).rejects.toMatchObject({ code: "remote-auth", message: expect.stringContaining("wrong key") });
  });
});
