/**
 * Answers aimed at the wrong turn: a real turn id under another
 * conversation, a turn of a program this server does not serve. Each is
 * refused with a code, nothing is written, and the server serves on.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { connect, serve } from "../../adapters/websocket/index.js";
import { ai, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { keeper, waitingDesk } from "./fixtures.js";

const keep = keeper();

describe("an answer for a turn that is not where it says", () => {
  it("another conversation's turn id, or a turn of a program not served: coded refusals, no record written, nothing run", async () => {
    const d = await waitingDesk(["sam", "ana"]);
    // a turn of another program, waiting in the same store
    let shipped = 0;
    const ship = tool("ship", { description: "Ship.", input: { order_id: z.string() }, effects: "changes" }, () => (shipped++, "shipped"));
    const shop = ai("shop", { description: "Ship orders.", input: { message: z.string() }, tools: [ship] })
      .using({ lm: scripted([{ toolCalls: [{ name: "ship", input: { order_id: "A-1" } }] }, "Shipped."]) });
    await shop.conversation("lee", { store: d.store, approve: "changes" }).send("Ship A-1.").catch(() => undefined);
    const server = keep(await serve({ store: d.store, programs: [d.served], port: 0 }));
    const app = keep(await connect(server.url));
    const list = await app.waiting();
    const sam = list.find((w) => w.conversation === "sam")!;
    const lee = list.find((w) => w.conversation === "lee")!;
    expect(lee.program).toBe("shop");
    const lengths = async () => Promise.all(["sam", "ana", "lee"].map(async (id) => (await d.store.read(id)).length));
    const before = await lengths();

    const refusals = await Promise.all([
      app.approve({ conversation: "ana", turn: sam.turn }), // sam's turn, said to be ana's
      app.deny({ conversation: "ana", turn: sam.turn, reason: "x" }),
      app.resume({ conversation: "ana", turn: sam.turn }),
      app.approve({ conversation: "lee", turn: lee.turn }), // shop is not served here
      app.resume({ conversation: "lee", turn: lee.turn }),
      app.approve({ conversation: "nobody", turn: sam.turn }),
      app.approve({ conversation: "sam", turn: sam.turn, id: "desk#9:9" }), // an approval the turn never asked
    ].map((s) => Promise.resolve(s).then(() => "resolved", (e: unknown) => (e as { code: string }).code)));
    expect(refusals).toEqual(["turn-state", "turn-state", "turn-state", "remote-unknown-program", "remote-unknown-program", "turn-state", "approval-unknown"]);
    await expect(app.abandon({ conversation: "lee", turn: lee.turn })).rejects.toMatchObject({ code: "remote-unknown-program" });
    expect(await lengths()).toEqual(before);
    expect([d.REFUNDS.length, shipped]).toEqual([0, 0]);
    // still served: the real answer works
    expect(await app.approve({ conversation: "sam", turn: sam.turn })).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toHaveLength(1);
  });
});
