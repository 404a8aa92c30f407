/**
 * Hunt 65: once the server said its tools changed (notifications/tools/list_changed), or the client connected
 * anew (a restarted or redeployed server), only tools taken as reading were looked up again before they ran. A
 * changing tool (approved by a person as it was first listed) was sent with the arguments the model wrote for
 * its old input schema, whatever the server now lists: to a tool whose inputs now mean something else (a
 * refund's `amount` in cents, now in dollars), or to a tool the server no longer has. Now every tool is looked
 * up again once they changed: one the server no longer lists, or whose input schema changed, is not sent
 * (`settings-invalid`, a tool error the model sees, saying to take the tools again with mcpTools); one that is
 * the same (its schema's keys in another order included) runs.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai, memoryStore } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45 } from "./fixtures/hunt45.js";
import { changingServer65 } from "./fixtures/hunt65-changing.js";

const kept = closedAfterEach();

const refund = (properties: Record<string, unknown>, required = Object.keys(properties)) => ({
  name: "refund",
  description: "Refund an order.",
  inputSchema: { type: "object", properties, required },
  annotations: { readOnlyHint: false },
});
const CENTS = refund({ order: { type: "string" }, amount: { type: "integer", description: "in cents" } });
const DOLLARS = refund({ order: { type: "string" }, amount: { type: "number", description: "in dollars" } });
const other = { name: "peek", description: "Peek.", inputSchema: { type: "object" }, annotations: { readOnlyHint: false } };

describe("a changing tool after the server's tools changed", () => {
  it("the client connected anew to a server whose refund takes dollars now: the call in cents is not sent", async () => {
    const s = kept(await changingServer65([CENTS, other]));
    const [tool] = await mcpTools(s.client, { include: ["refund"] });
    await s.reconnect([DOLLARS, other]);
    const error = await tool!.runAsTool({ order: "A1", amount: 3900 }, ctx45().ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: "FunctaiError", code: "settings-invalid" });
    expect((error as Error).message).toMatch(/changed the input schema of refund.*not run.*mcpTools/);
    expect(s.calls).toEqual([]);
  }, 30_000);

  it("the server said its tools changed and no longer lists refund: not sent, a tool error the model sees", async () => {
    const s = kept(await changingServer65([CENTS, other]));
    const tools = await mcpTools(s.client);
    await s.change([other]);
    const lm = scripted([
      { toolCalls: [{ name: "refund", input: { order: "A1", amount: 3900 } }] },
      (request) => {
        const last = request.messages.filter((m) => m.role === "tool").at(-1)!;
        return `<result>${last.isError ? "failed" : "ok"}: ${last.content}</result>`;
      },
    ]);
    const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools });
    const chat = fn.conversation("sam", { store: memoryStore(), lm, approve: null });
    expect(await chat.send("Refund it.")).toMatch(/^failed: .*no longer lists refund.*mcpTools/);
    expect(s.calls).toEqual([]);
  }, 30_000);

  it("the same tool listed again (its schema's keys in another order) runs, with its arguments as given", async () => {
    const s = kept(await changingServer65([CENTS, other]));
    const [tool] = await mcpTools(s.client, { include: ["refund"] });
    const reordered = {
      ...CENTS,
      inputSchema: {
        required: ["order", "amount"],
        properties: { amount: { description: "in cents", type: "integer" }, order: { type: "string" } },
        type: "object",
      },
    };
    await s.change([other, reordered]);
    await expect(tool!.runAsTool({ order: "A1", amount: 3900 }, ctx45().ctx)).resolves.toBe('ran refund {"order":"A1","amount":3900}');
    expect(s.calls).toEqual([{ name: "refund", arguments: { order: "A1", amount: 3900 } }]);
  }, 30_000);

  it("a tool the caller gave effects for is looked up too: gone, it is not sent", async () => {
    const s = kept(await changingServer65([CENTS, other]));
    const [tool] = await mcpTools(s.client, { include: ["refund"], effects: { refund: "reads" } });
    await s.change([other]);
    await expect(tool!.runAsTool({ order: "A1", amount: 3900 }, ctx45().ctx)).rejects.toMatchObject({ code: "settings-invalid" });
    expect(s.calls).toEqual([]);
  }, 30_000);

  it("the server now lists another output schema for refund: not sent (its answer would be checked against the old one)", async () => {
    const withOutput = (properties: Record<string, unknown>) => ({
      ...CENTS,
      outputSchema: { type: "object", properties, required: Object.keys(properties) },
    });
    const s = kept(await changingServer65([withOutput({ refunded: { type: "integer" } }), other]));
    const [tool] = await mcpTools(s.client, { include: ["refund"] });
    await s.change([withOutput({ refund_id: { type: "string" } }), other]);
    const error = await tool!.runAsTool({ order: "A1", amount: 3900 }, ctx45().ctx).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: "FunctaiError", code: "settings-invalid" });
    expect((error as Error).message).toMatch(/changed the output schema of refund.*not run.*mcpTools/);
    expect(s.calls).toEqual([]);
  }, 30_000);
});
