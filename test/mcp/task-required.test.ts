/**
 * A tool the server says runs only as a task (`execution.taskSupport:
 * "required"`) cannot be called with a plain `tools/call`. The SDK's client
 * refused such a call only for tools of the last page it listed (it forgets
 * the earlier pages' tools at each page), so one listed on an earlier page
 * was sent. `mcpTools` refuses such a tool at listing, as it refuses the
 * tools providers cannot be offered, saying to leave it out with `include`.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai } from "../../src/index.js";
import { refusalOf } from "../fixtures/refused.js";
import { deskModel } from "./fixtures/desk.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

const EXPORT: Tool = { name: "export_ledger", inputSchema: { type: "object" }, execution: { taskSupport: "required" } };
const HOLD: Tool = { name: "hold", inputSchema: { type: "object", properties: { account: { type: "string" } } } };

const answer = (name: string) => ({ content: [{ type: "text" as const, text: `${name} ran` }] });

describe("a tool that runs only as a task", () => {
  it("is refused at listing (settings-invalid, naming it and include), on the last page or an earlier one; nothing is sent", async () => {
    for (const pages of [[[HOLD, EXPORT]], [[EXPORT], [HOLD]]]) {
      const { client, calls } = await hunt13Server(pages, answer);
      const refused = await refusalOf(() => mcpTools(client));
      expect(refused.code).toBe("settings-invalid");
      expect(refused.message).toMatch(/export_ledger runs only as a task .*include/);
      expect(calls).toEqual([]);
    }
  });

  it("left out with include, the server's other tools are usable", async () => {
    const { client, calls } = await hunt13Server([[EXPORT], [HOLD]], answer);
    const tools = await mcpTools(client, { include: ["hold"] });
    const fn = ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools });
    expect(await fn("Hold A-1.", { lm: deskModel({ name: "hold", input: { account: "A-1" } }), approve: () => true })).toBe("ok: hold ran");
    expect(calls).toEqual([{ name: "hold", args: { account: "A-1" } }]);
  });
});
