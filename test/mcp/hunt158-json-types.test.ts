/**
 * Hunt 158: over Streamable HTTP, a POST carrying a request answered (200) with a media type the SDK reads no answer
 * from. The SDK's transport reads `application/json` and `text/event-stream` only; any other type, a `+json` one
 * included (`application/problem+json`, `application/vnd.example+json`: a gateway's error page, a server of another
 * make), or none, fails the request at once with its bare "Unexpected content type" (code -1, no stable code): a
 * reading call threw it as it was, a changing call's turn stopped for a person saying "no answer came back" (one
 * came). Now, as hunt 156 tells a JSON answer that does not parse: the answer could not be read, saying its type and
 * its first characters; a reading call and a listing are `remote-protocol`, a changing call may have run.
 * `application/json` with parameters, or in capitals, is JSON: one that does not parse is told as hunt 156 tells it
 * (a guard).
 *
 * The client never sends a batch (a POST carrying an array): each request goes in a POST of its own, so hunt 156's
 * 202 handling, which reads a POST carrying one request, covers every request functai sends (pinned here).
 *
 * The server is the SDK's over node:http in this process, behind an HTTP server answering the POSTs each case names
 * (fixtures/odd-posts.ts). Each call's timeout is far past the test's own, so a call that waits for it fails the test.
 */
import { describe, expect, it } from "vitest";
import { mcpTools } from "../../adapters/mcp/index.js";
import { closedAfterEach } from "./fixtures/hunt35.js";
import { ctx45, settled } from "./fixtures/hunt45.js";
import { type Odd, oddServer } from "./fixtures/odd-posts.js";

const kept = closedAfterEach();

const TIMEOUT = 600_000;

/** What is said of an answer that came as `type` (its first characters `first`, as JSON writes them). */
const untyped = (type: string, first: string) =>
  `it came as ${type}, not as JSON (application/json) nor as a stream of events (text/event-stream), the answers MCP gives: ${first}`;

/** The server, its tools listed, then every POST carrying a call answered as `odd`. */
async function answeredSo(odd: Odd) {
  let now: Odd | undefined;
  const s = kept(await oddServer(() => now));
  const [peek, refund] = await mcpTools(s.client, { timeout: TIMEOUT });
  now = odd;
  return { ...s, peek: peek!, refund: refund! };
}

describe("a call answered with a media type the SDK reads no answer from", () => {
  it("+json that does not parse: a reading call is remote-protocol, saying the type and what came", async () => {
    const { peek } = await answeredSo({ method: "tools/call", status: 200, type: "application/vnd.example+json", body: "not json at all" });
    const { error } = await settled(peek);
    expect(error).toMatchObject({ name: "FunctaiError", code: "remote-protocol" });
    expect(error!.message).toBe(`the MCP server's answer to peek could not be read: ${untyped("application/vnd.example+json", '"not json at all"')}`);
  }, 30_000);

  it("+json: a changing call's turn stops for a person, saying an answer came and could not be read (not that none came)", async () => {
    const problem = JSON.stringify({ type: "about:blank", title: "Bad Gateway", detail: "upstream gone ".repeat(30) });
    const s = await answeredSo({ method: "tools/call", status: 200, type: "application/problem+json; charset=utf-8", body: problem });
    const { error } = await settled(s.refund);
    expect(error).toMatchObject({ name: "NeedsPerson" });
    const said = `the MCP tool refund may have run: the MCP server's answer could not be read (${untyped("application/problem+json", "")}`;
    expect(error!.message.startsWith(`${said}${JSON.stringify('{"type":"about:blank","title":"Bad Gateway"').slice(0, -1)}`)).toBe(true);
    // its first characters only, cut ("…"): what came is longer
    expect(error!.message.endsWith("…). Say what it returned, or ask for a rerun.")).toBe(true);
    expect(problem.length).toBeGreaterThan(400);
    expect(error!.message.length).toBeLessThan(said.length + 150);
    expect(s.taken).toEqual(["refund"]);
  }, 30_000);

  it("no content type at all: said so", async () => {
    const { peek } = await answeredSo({ method: "tools/call", status: 200, body: "" });
    const { error } = await settled(peek);
    expect(error).toMatchObject({ name: "FunctaiError", code: "remote-protocol" });
    expect(error!.message).toBe(
      "the MCP server's answer to peek could not be read: it came with no content type, not as JSON (application/json) nor as a stream of events (text/event-stream), the answers MCP gives: it was empty",
    );
  }, 30_000);

  it("a listing answered as text/html fails remote-protocol, saying the same", async () => {
    const s = kept(await oddServer(() => ({ method: "tools/list", status: 200, type: "text/html", body: "<h1>Bad Gateway</h1>" })));
    await expect(mcpTools(s.client, { timeout: TIMEOUT })).rejects.toMatchObject({
      name: "FunctaiError",
      code: "remote-protocol",
      message: `the MCP server's tools could not be listed: its answer could not be read (${untyped("text/html", '"<h1>Bad Gateway</h1>"')})`,
    });
  }, 30_000);

  for (const type of ["application/json; charset=utf-8", "Application/JSON"])
    it(`${type} that does not parse is told as not JSON, with what came (guard)`, async () => {
      const { peek } = await answeredSo({ method: "tools/call", status: 200, type, body: "not json at all" });
      const { error } = await settled(peek);
      expect(error).toMatchObject({ name: "FunctaiError", code: "remote-protocol" });
      expect(error!.message).toBe('the MCP server\'s answer to peek could not be read: it is not JSON: "not json at all" (15 bytes)');
    }, 30_000);

  it("a call answered after, as JSON, is read as ever (guard: nothing is left watching)", async () => {
    let now: Odd | undefined;
    const s = kept(await oddServer(() => now));
    const [peek, refund] = await mcpTools(s.client, { timeout: TIMEOUT });
    now = { method: "tools/call", status: 200, type: "application/problem+json", body: "{}" };
    expect((await settled(peek!)).error).toMatchObject({ code: "remote-protocol" });
    now = undefined;
    expect(await refund!.runAsTool({}, ctx45().ctx)).toBe("ran refund");
  }, 30_000);
});

it("every request functai sends (listing, calls) goes in a POST of its own, never a batch (guard)", async () => {
  const s = kept(await oddServer(() => undefined));
  const [peek, refund] = await mcpTools(s.client, { timeout: TIMEOUT });
  await Promise.all([peek!.runAsTool({}, ctx45().ctx), refund!.runAsTool({}, ctx45().ctx)]);
  const methods = s.posted.map((body) => (Array.isArray(body) ? "a batch" : (body as { method?: string }).method));
  expect(methods).toContain("tools/list");
  expect(methods.filter((m) => m === "tools/call")).toHaveLength(2);
  expect(methods).not.toContain("a batch");
}, 30_000);
