/**
 * Programs given to `serve` as a record are served under its keys
 * (`{ helpdesk: desk }`: companions call "helpdesk"), while their turns are
 * recorded under the program's own name ("desk"). Before, the server looked
 * its turns up by the recorded name among the served ones: a turn its own
 * owner call started could never be answered there (remote-unknown-program,
 * "a program this server does not serve (desk)"), was listed as "desk", and a
 * key limited to "helpdesk" never saw it. A turn of a program not served that
 * happened to be recorded under a served key was run by the wrong program.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { connect, serve } from "../../adapters/websocket/index.js";
import { ai, tool, Waiting } from "../../src/index.js";
import { memoryStore, scripted } from "../../src/testing/index.js";
import { desk, deskModel, keeper } from "./fixtures.js";

const keep = keeper();

/** The desk served under the key "helpdesk" (not its name), with an admin key and one limited to "helpdesk". */
const serveAsHelpdesk = (store: ReturnType<typeof memoryStore>, d: ReturnType<typeof desk>) =>
  serve({ store, programs: { helpdesk: d.fn.using({ lm: deskModel() }) }, keys: ["admin", { key: "k2", programs: ["helpdesk"] }], port: 0 });

describe("a program served under a record's key that is not its name", () => {
  it("its owner call's turn is listed under the served name, seen by a key limited to it, and answered: the server runs it on", async () => {
    const d = desk();
    const store = memoryStore();
    const server = keep(await serveAsHelpdesk(store, d));
    const app = keep(await connect(server.url, { key: "k2" }));
    expect(app.programs).toEqual(["helpdesk"]);
    const called = await app.call("helpdesk", { message: "Order A-1042 never arrived. Refund it, please." }, { conversation: "sam" }).outcome;
    expect(called).toMatchObject({ state: "waiting" });

    const [w] = await app.waiting(); // before: [] (listed as "desk", which k2 may not see)
    expect(w).toMatchObject({ conversation: "sam", turn: called.turn, program: "helpdesk" });
    expect(await app.status({ conversation: "sam", turn: called.turn })).toMatchObject({ state: "waiting" });
    // before: remote-unknown-program, "a program this server does not serve (desk)"
    expect(await app.approve({ conversation: "sam", turn: called.turn, by: "maria" })).toBe("The last tool said: refunded 39.00 for A-1042");
    expect(d.REFUNDS).toEqual([["A-1042", 39]]);
  });

  it("a turn of another program recorded under a served key is not run by the served program", async () => {
    const store = memoryStore();
    // a program really named "helpdesk", whose turn waits in the store
    let shipped = 0;
    const ship = tool("ship", { description: "Ship.", input: { order_id: z.string() }, effects: "changes" }, () => (shipped++, "shipped"));
    const other = ai("helpdesk", { description: "Ship orders.", input: { message: z.string() }, tools: [ship] }).using({
      lm: scripted([{ toolCalls: [{ name: "ship", input: { order_id: "A-1" } }] }, "Shipped."]),
    });
    const waited = await other
      .conversation("lee", { store, approve: "changes" })
      .send({ message: "Ship A-1." })
      .catch((e: unknown) => e);
    expect(waited).toBeInstanceOf(Waiting);
    // served: the desk, under the key "helpdesk"
    const d = desk();
    const server = keep(await serveAsHelpdesk(store, d));
    const admin = keep(await connect(server.url, { key: "admin" }));
    const [lee] = await admin.waiting();
    expect(lee).toMatchObject({ conversation: "lee", program: null }); // not a program this server serves: no served name
    // before: run by the desk (a model scripted for the desk, in a turn of another program)
    await expect(admin.approve({ conversation: "lee", turn: lee!.turn }).outcome).rejects.toMatchObject({ code: "remote-unknown-program" });
    expect([shipped, d.LOOKUPS.length, d.REFUNDS.length]).toEqual([0, 0, 0]);
    // nor seen by a key limited to the served "helpdesk"
    expect(await keep(await connect(server.url, { key: "k2" })).waiting()).toEqual([]);
  });

  it("two served programs of one name: an owner call of the one its turns would not be found again for is refused, before it runs", async () => {
    const lm = deskModel();
    const a = desk();
    const b = desk();
    const store = memoryStore();
    const server = keep(await serve({ store, programs: { desk: a.fn.using({ lm }), other: b.fn.using({ lm }) }, port: 0 }));
    const app = keep(await connect(server.url));
    // its turns are recorded as "desk": answered, they would be run by the other program
    await expect(app.call("other", { message: "Refund A-1042." }, { conversation: "sam" }).outcome).rejects.toMatchObject({
      code: "settings-invalid",
    });
    expect(await store.read("sam")).toEqual([]);
    expect(b.LOOKUPS).toEqual([]);
    // a caller call of it keeps no turn: it runs
    const s = app.call("other", { message: "Where is A-1042?" }, { approvals: "caller" });
    for await (const e of s) if (e.type === "approval") void s.approve();
    expect(b.LOOKUPS).toEqual(["A-1042"]);
  });
});
