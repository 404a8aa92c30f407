/**
 * functai/mcp over a real MCP server (the SDK's McpServer) linked in memory:
 * the server's schemas reach the model as they are and check inputs; effects
 * come from the annotations; results, errors and a server that goes away.
 */
import { describe, expect, it } from "vitest";
import { effectsOf, mcpTools } from "../../adapters/mcp/index.js";
import { ApprovalError, FunctaiError, memoryStore, toolSpec, Waiting } from "../../src/index.js";
import { deskModel, linkedClient, makeDesk } from "./fixtures/desk.js";

const setup = async () => {
  const ledger: string[] = [];
  let hung = () => {};
  const hang = new Promise<void>((r) => (hung = r));
  let cancel = () => {};
  const cancelled = new Promise<string>((r) => (cancel = () => r("cancelled")));
  const linked = await linkedClient({ record: (line) => ledger.push(line), onHang: () => hung(), onCancelled: () => cancel() });
  return { ...linked, ledger, hang, cancelled };
};

describe("mcpTools", () => {
  it("gives the model each tool's name, description and input JSON Schema as the server lists them", async () => {
    const { client } = await setup();
    const listed = (await client.listTools()).tools;
    const tools = await mcpTools(client);
    expect(tools.map((t) => t.name)).toEqual(listed.map((t) => t.name));
    for (const [i, t] of tools.entries()) {
      expect(toolSpec(t)).toEqual({ name: listed[i]!.name, description: listed[i]!.description, parameters: listed[i]!.inputSchema });
    }
    expect(toolSpec(tools[0]!).parameters).toMatchObject({ type: "object", properties: { order_id: { type: "string", pattern: "^[A-Z]-\\d{4}$" } } });
  });

  it("takes effects from the annotations (readOnlyHint: true reads, anything else changes), unless told otherwise", async () => {
    const { client } = await setup();
    const effects = Object.fromEntries((await mcpTools(client)).map((t) => [t.name, t.toolEffects]));
    expect(effects).toEqual({ lookup_order: "reads", refund: "changes", stock_level: "reads", carrier_status: "reads", add_note: "changes" });
    expect(effectsOf({ name: "x", inputSchema: { type: "object" } })).toBe("changes");
    expect(effectsOf({ name: "x", inputSchema: { type: "object" }, annotations: { readOnlyHint: false, destructiveHint: false } })).toBe("changes");
    const overridden = await mcpTools(client, { effects: { add_note: "reads", lookup_order: "changes" } });
    expect(overridden.find((t) => t.name === "add_note")!.toolEffects).toBe("reads");
    expect(overridden.find((t) => t.name === "lookup_order")!.toolEffects).toBe("changes");
  });

  it("takes only the tools asked for, and refuses names the server does not have", async () => {
    const { client } = await setup();
    expect((await mcpTools(client, { include: ["refund", "lookup_order"] })).map((t) => t.name)).toEqual(["lookup_order", "refund"]);
    expect((await mcpTools(client, { include: (t) => t.annotations?.readOnlyHint === true })).map((t) => t.name)).toEqual(["lookup_order", "stock_level", "carrier_status"]);
    await expect(mcpTools(client, { include: ["refnud"] })).rejects.toMatchObject({ code: "settings-invalid", message: expect.stringContaining('"refnud"') });
    await expect(mcpTools(client, { effects: { nope: "reads" } })).rejects.toMatchObject({ code: "settings-invalid" });
    await expect(mcpTools(client, { effects: { refund: "read" as "reads" } })).rejects.toMatchObject({ code: "settings-invalid" });
    await expect(mcpTools({} as never)).rejects.toBeInstanceOf(FunctaiError);
  });

  it("runs a read-only tool without asking under approve: \"changes\"; the model sees its structured content", async () => {
    const { client, ledger } = await setup();
    const desk = await makeDesk(client, { include: ["lookup_order"] });
    const lm = deskModel({ name: "lookup_order", input: { order_id: "A-1042" } });
    const reply = await desk("Where is A-1042?", { lm, approve: "changes" });
    expect(reply).toBe('ok: {"item":"kettle","status":"lost by the carrier","amount":39}');
    expect(lm.requests[1]!.messages.at(-1)).toMatchObject({ role: "tool", name: "lookup_order", content: '{"item":"kettle","status":"lost by the carrier","amount":39}' });
    expect(ledger).toEqual([]);
  });

  it("asks before a destructive tool: a plain call refuses with approval-required before it runs", async () => {
    const { client, ledger } = await setup();
    const desk = await makeDesk(client);
    const error = await desk("Order A-1042 never arrived. Refund it.", { lm: deskModel(), approve: "changes" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApprovalError);
    expect(error).toMatchObject({ code: "approval-required", message: expect.stringContaining("desk/refund") });
    expect(ledger).toEqual([]);
  });

  it("in a conversation the destructive call waits, saved; approved, it runs once and the text result reaches the model", async () => {
    const { client, ledger } = await setup();
    const desk = await makeDesk(client);
    const store = memoryStore();
    const chat = desk.conversation("sam", { store, approve: "changes", lm: deskModel() });
    const waiting = await chat.send("Order A-1042 never arrived. Refund it.").catch((e: unknown) => e);
    expect(waiting).toBeInstanceOf(Waiting);
    expect((waiting as Waiting).approvals).toMatchObject([{ name: "refund", input: { order_id: "A-1042", amount: 39 }, effects: "changes" }]);
    expect(ledger).toEqual([]);
    const turn = (await desk.conversation("sam", { store, lm: deskModel() }).turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toBe("refunded 39.00 for A-1042");
    expect(ledger).toEqual(["refund A-1042 39.00"]);
  });

  it("checks the input against the server's schema before the tool runs; the model is told what is wrong", async () => {
    const { client, ledger } = await setup();
    const desk = await makeDesk(client);
    const lm = deskModel({ name: "refund", input: { order_id: "A-1042", amount: -5 } });
    const reply = await desk("Refund A-1042.", { lm });
    expect(reply).toMatch(/^failed: Error: invalid input for refund: input: .*amount.*The tool did not run\.$/);
    expect(ledger).toEqual([]);
  });

  it("reports a server error (a tool body that throws, a result marked isError) to the model", async () => {
    const { client } = await setup();
    const desk = await makeDesk(client);
    const thrown = await desk("Is there stock?", { lm: deskModel({ name: "stock_level", input: { item: "kettle" } }) });
    expect(thrown).toMatch(/^failed: Error: .*the stock database is down \(asked about kettle\)/);
    const marked = await desk("Where is Z-0000?", { lm: deskModel({ name: "lookup_order", input: { order_id: "Z-0000" } }) });
    expect(marked).toBe("failed: Error: no order Z-0000");
    await expect(desk("Is there stock?", { lm: deskModel({ name: "stock_level", input: { item: "kettle" } }), toolErrors: "raise" }))
      .rejects.toMatchObject({ code: "tool-failed", message: expect.stringContaining("the stock database is down") });
  });

  it("a server that goes away mid-call is a tool error the model sees, not a hang", async () => {
    const { client, serverSide, hang } = await setup();
    const desk = await makeDesk(client);
    void hang.then(() => serverSide.close());
    const reply = await desk("Where is A-1042?", { lm: deskModel({ name: "carrier_status", input: { order_id: "A-1042" } }) });
    expect(reply).toMatch(/^failed: Error: .*[Cc]onnection closed/);
  });

  it("a stopped turn cancels the MCP request (ctx.signal)", async () => {
    const { client, hang, cancelled } = await setup();
    const desk = await makeDesk(client);
    const controller = new AbortController();
    void hang.then(() => controller.abort());
    const call = desk("Where is A-1042?", { lm: deskModel({ name: "carrier_status", input: { order_id: "A-1042" } }), signal: controller.signal });
    await expect(call).rejects.toMatchObject({ code: "turn-aborted" });
    // the server's handler saw its request cancelled (the SDK sent notifications/cancelled)
    expect(await cancelled).toBe("cancelled");
  });
});
