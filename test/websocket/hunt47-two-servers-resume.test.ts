/**
 * Two servers on one PostgreSQL database both list a turn another server let
 * go of mid-refund (its close, past its grace: the turn reads interrupted,
 * the refund unfinished). Two people say "run it again" through either
 * server at the same moment: the refund runs once more, not twice; the one
 * who lost is told the turn is running or done, or refused, never that it
 * failed. Runs when FUNCTAI_TEST_PG is set.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { postgresStore } from "../../adapters/postgres/index.js";
import { connect, serve } from "../../adapters/websocket/index.js";
import { ai, readConversation, tool, Waiting } from "../../src/index.js";
import { dropSchema, freshSchema, NO_SERVER, SERVER_URL } from "../postgres/server.js";
import { deskModel, keeper, until } from "./fixtures.js";

const keep = keeper();

describe.skipIf(NO_SERVER !== null)("an interrupted turn resumed through two servers at once (PostgreSQL)", () => {
  it("the refund asked to run again runs once; the other resume is told where the turn is", async () => {
    const schema = freshSchema();
    keep({ close: () => dropSchema(schema).then(() => undefined) });
    const stores = [0, 1, 2].map(() => keep(postgresStore({ connectionString: SERVER_URL! }, { schema })));
    const refunds: string[] = [];
    const findOrder = tool("find_order", { description: "The order.", input: { order_id: z.string() }, effects: "reads" }, () => ({
      status: "lost",
    }));
    const refund = tool(
      "refund",
      { description: "Refund.", input: { order_id: z.string(), amount: z.number() }, effects: "changes" },
      async ({ order_id }, ctx) => {
        refunds.push(order_id);
        // the first run is held until the server lets go of it; a rerun returns
        if (refunds.length === 1)
          await new Promise((_r, reject) => ctx.signal?.addEventListener("abort", () => reject(new Error("let go")), { once: true }));
        return "refunded";
      },
    );
    const desk = ai("desk", { description: "Refund lost orders.", input: { message: z.string() }, tools: [findOrder, refund] }).using({
      lm: deskModel(10),
    });
    const waiting = await desk
      .conversation("sam", { store: stores[0]!, approve: "changes" })
      .send("Refund A-1042.")
      .catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);

    // the first server runs the approved turn into the refund, then closes: past 5 s it lets go of it
    const first = await serve({ store: stores[0]!, programs: [desk], port: 0 });
    const a0 = await connect(first.url, { reconnect: false });
    const [w] = await a0.waiting();
    const approved = a0.approve({ conversation: "sam", turn: w!.turn, by: "maria" });
    approved.outcome.catch(() => undefined);
    await until(() => refunds.length === 1);
    await a0.close();
    await first.close();

    const servers = [1, 2].map((i) => serve({ store: stores[i]!, programs: [desk], port: 0, onError: () => undefined }));
    const apps = await Promise.all(servers.map(async (s) => keep(await connect(keep(await s).url, { reconnect: false }))));
    for (const app of apps)
      await until(async () => (await app.waiting()).some((x) => x.state === "interrupted" && x.unfinished.length === 1), 10_000);
    const [x] = (await apps[0]!.waiting()).filter((e) => e.turn === w!.turn);
    const invocation = x!.unfinished[0]!.invocation;
    const results = await Promise.all(
      apps.map((app) =>
        app.resume({ conversation: "sam", turn: w!.turn, rerun: [invocation] }).outcome.then(
          (o) => ({ state: o.state, code: o.error?.code }),
          (e: { code?: string }) => ({ state: "refused", code: e.code }),
        ),
      ),
    );
    expect(results.map((r) => r.state)).toContain("done");
    // the other: told the turn runs elsewhere, or refused as claimed there (never that it failed, nor run again)
    for (const r of results.filter((r) => r.state !== "done"))
      expect(r.state === "running" || (r.state === "refused" && (r.code === "turn-claimed" || r.code === "turn-state")), JSON.stringify(r)).toBe(
        true,
      );
    await until(async () => readConversation(await stores[1]!.read("sam"), { now: Date.now() }).turns.get(w!.turn)?.state === "done", 10_000);
    expect(refunds).toEqual(["A-1042", "A-1042"]); // the held run, and one rerun
  }, 60_000);
});
