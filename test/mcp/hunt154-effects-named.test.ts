/**
 * Hunt 154: an effect misspelt in mcpTools' `effects` (`"read"` for `"reads"`) was refused with "effects must be
 * "reads" or "changes", not "read"", naming no tool: among the effects given for many of a server's tools, the one
 * misspelt had to be looked for. It names its tool now, as a tool() definition's refusal does since hunt 150. The
 * server is the SDK's, over Streamable HTTP; the refusal comes before it is asked anything.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { refusalOf } from "../fixtures/refused.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { tool45 } from "./fixtures/hunt45.js";
import { httpServer52 } from "./fixtures/hunt52-http.js";

const kept = closedAfterEach();

describe("a misspelt effect in mcpTools' effects", () => {
  it("is refused naming the tool it was given for, among others well spelt", async () => {
    const { client } = kept(await httpServer52([tool45("lookup_order"), tool45("refund", true), tool45("cancel", true)]));
    const e = await refusalOf(() => mcpTools(client, { effects: { lookup_order: "reads", refund: "read" as never, cancel: "changes" } }));
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toBe('mcpTools effects of the tool "refund": effects must be "reads" or "changes", not "read"');
  });

  it("a name that needs quoting is quoted as it was given", async () => {
    const { client } = kept(await httpServer52([tool45("orders.refund", true)]));
    const e = await refusalOf(() => mcpTools(client, { effects: { "orders.refund": true as never } }));
    expect(e.code).toBe("settings-invalid");
    expect(e.message).toBe('mcpTools effects of the tool "orders.refund": effects must be "reads" or "changes", not true');
  });
});
