/**
 * Hunt 65: an OAuth refusal from a Streamable HTTP MCP server was read as a call that may have run. With an
 * OAuth provider on the client's transport, the SDK answers the server's 401 (or 403 `insufficient_scope`)
 * by authorizing again: when a person must authorize, it throws its `UnauthorizedError`; when a fresh token is
 * refused too, a `StreamableHTTPError` "Server returned 401 after successful authentication" (or "403 after
 * trying upscoping"). Neither begins "Error POSTing to endpoint", so a changing call's turn stopped for a
 * person ("may have run … no answer came back", turn-unfinished), though the server refused the call before
 * running it. Now each is `remote-auth`, a tool error saying the tool did not run. A listing refused so (by
 * mcpTools) was `remote-protocol`, "the server answered with an error": now `remote-auth` too.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai, memoryStore } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, tool45 } from "./fixtures/hunt45.js";
import { authServer65 } from "./fixtures/hunt65-auth.js";

const kept = closedAfterEach();

describe("a call the MCP server refuses for its OAuth token", () => {
  it("a person must authorize again (the SDK's UnauthorizedError): a tool error the model sees, saying it did not run", async () => {
    const s = kept(await authServer65([tool45("refund", true)], true));
    const tools = await mcpTools(s.client);
    s.revoke(401);
    const desk = ai("desk", { description: "Help.", input: { message: z.string() }, tools });
    const lm = deskModel({ name: "refund", input: {} });
    const chat = desk.conversation("sam", { store: memoryStore(), lm });
    expect(await chat.send("Refund it.")).toMatch(/^failed: .*refund.*not run|did not run/);
    expect(lm.requests).toHaveLength(2);
    expect(s.calls).toEqual([]);
    expect(s.redirects).toHaveLength(1);
  }, 40_000);

  for (const [status, interactive] of [
    [401, true],
    [401, false],
    [403, true],
    [403, false],
  ] as const)
    it(`refused with ${status} (${interactive ? "a person must authorize" : "a fresh token refused too"}): remote-auth, nothing ran`, async () => {
      const s = kept(await authServer65([tool45("refund", true)], interactive));
      const [refund] = await mcpTools(s.client);
      s.revoke(status);
      const error = await refund!.runAsTool({}, ctx45().ctx).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ name: "FunctaiError", code: "remote-auth" });
      expect((error as Error).message).toMatch(/refund/);
      expect(s.calls).toEqual([]);
    }, 40_000);

  for (const [status, interactive] of [
    [401, true],
    [401, false],
    [403, true],
  ] as const)
    it(`the listing refused with ${status} (${interactive ? "a person must authorize" : "a fresh token refused too"}): remote-auth, not remote-protocol`, async () => {
      const s = kept(await authServer65([tool45("refund", true)], interactive));
      s.revoke(status);
      await expect(mcpTools(s.client)).rejects.toMatchObject({ name: "FunctaiError", code: "remote-auth" });
    }, 40_000);
});
