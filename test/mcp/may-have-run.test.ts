/**
 * A changing MCP tool whose call was sent and never answered (the
 * connection closed under it, or it timed out) may have acted on the server:
 * the turn stops for a person, resumable (`turn-unfinished`), the tool left
 * unfinished, never run again on its own, and never shown to the model as
 * an error it might answer by calling again. Before, it was a tool error the
 * model saw, and the desk's model called refund again. A reading tool's
 * call, and a call the server answered with an error, stay tool errors.
 */
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { McpClient } from "../../adapters/mcp/index.js";
import { LET_GO } from "../../src/conversation/host.js";
import { memoryStore, type ConversationRecord } from "../../src/index.js";
import { deskModel, linkedClient, makeDesk } from "./fixtures/desk.js";

/** The desk's model, asking for the refund first. */
const refundFirst = () => deskModel({ name: "refund", input: { order_id: "HANG", amount: 39 } });

async function brokenMidRefund() {
  const ledger: string[] = [];
  let hung = () => {};
  const hang = new Promise<void>((r) => (hung = r));
  const linked = await linkedClient({ record: (line) => ledger.push(line), onHang: () => hung() });
  void hang.then(() => linked.serverSide.close()); // the server goes away while the refund runs
  return { ...linked, ledger };
}

describe("a changing MCP call that may have run", () => {
  it("in a conversation: the turn stops for a person (turn-unfinished), reads interrupted with the refund unfinished, is let go, and resumes with the person's result; the refund ran once", async () => {
    const { client, ledger } = await brokenMidRefund();
    const desk = await makeDesk(client);
    const store = memoryStore();
    const lm = refundFirst();
    const chat = desk.conversation("sam", { store, lm });
    await expect(chat.send("Order HANG never arrived.")).rejects.toMatchObject({
      code: "turn-unfinished",
      message: expect.stringMatching(/refund may have run: .*[Cc]onnection closed/),
    });
    expect(ledger).toEqual(["refund HANG 39.00"]);
    expect(lm.requests).toHaveLength(1); // the refund's reply: the model was never told of a failure
    const [turn] = await desk.conversation("sam", { store }).turns();
    expect(turn!.state).toBe("interrupted");
    expect(turn!.unfinished.map((t) => [t.name, t.input])).toEqual([["refund", { order_id: "HANG", amount: 39 }]]);
    // another process on this host would see the holder alive: the turn says it was let go (a lease naming no process)
    const leases = (await store.read("sam")).filter((r: ConversationRecord) => r.kind === "lease") as unknown as { holder: string }[];
    expect(leases.at(-1)!.holder.startsWith(LET_GO)).toBe(true);
    const after = refundFirst();
    const resumed = await desk.conversation("sam", { store, lm: after }).turns();
    const invocation = resumed[0]!.unfinished[0]!.invocation;
    expect(await resumed[0]!.resume({ results: { [invocation]: "refunded 39.00 for HANG" } })).toBe("ok: refunded 39.00 for HANG");
    expect(after.requests).toHaveLength(1); // the reply it had was not paid again
    expect(ledger).toEqual(["refund HANG 39.00"]);
  });

  it("in a plain call: rejects with turn-unfinished; the model is not asked again", async () => {
    const { client, ledger } = await brokenMidRefund();
    const desk = await makeDesk(client);
    const lm = refundFirst();
    await expect(desk("Order HANG never arrived.", { lm, approve: () => true })).rejects.toMatchObject({ code: "turn-unfinished" });
    expect(lm.requests).toHaveLength(1);
    expect(ledger).toEqual(["refund HANG 39.00"]);
  });

  it("a request that timed out is in doubt too; a call the server answered with an error, or one never sent, is a tool error the model sees", async () => {
    const { client } = await linkedClient({ record: () => undefined });
    const listed = await client.listTools();
    const failing = (error: unknown): McpClient => ({ listTools: async () => listed, callTool: async () => Promise.reject(error) }) as unknown as McpClient;
    const run = async (error: unknown) => {
      const desk = await makeDesk(failing(error) as never, { include: ["refund"] });
      return desk("Order A-1042 never arrived.", { lm: deskModel({ name: "refund", input: { order_id: "A-1042", amount: 39 } }), approve: () => true }).then(
        (reply) => ({ reply }),
        (e: { code?: string }) => ({ code: e.code }),
      );
    };
    expect(await run(new McpError(-32001, "Request timed out", { timeout: 60_000 }))).toEqual({ code: "turn-unfinished" });
    expect(await run(new McpError(-32603, "the ledger is locked"))).toEqual({ reply: expect.stringMatching(/^failed: Error: .*the ledger is locked/) });
    expect(await run(new Error("Not connected"))).toEqual({ reply: expect.stringMatching(/^failed: Error: Not connected/) });
  });
});
