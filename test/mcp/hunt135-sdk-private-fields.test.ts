/**
 * Hunt 135: the SDK's private fields adapters/mcp/wire.ts now reads too (as hunt94's test guards the others). Its
 * wrapped fetch keeps a transport's `redirectPolicy: "follow"` (the SDK leaves redirects to fetch only for a `_fetch` it
 * made itself, and asks any other for `redirect: "manual"`): it reads `_followRedirects` (that policy) and
 * `_requestInit` (the caller's own `redirect`, kept). Renamed, they would leave "follow" undone once mcpTools took the
 * tools, silently: these tests fail naming the field instead. (lines.ts's accessor on the SSE transport's
 * `_eventSource`, set anew when it authorizes again, is guarded by hunt94's test of that field and by
 * hunt135-sse-new-event-source.)
 */
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";

const URL_ = new URL("http://127.0.0.1:9/mcp");

/** The names of the fields of `t` that no longer hold what wire.ts reads in them, given `requestInit` and the policy. */
function gone(name: string, make: (options: { requestInit: RequestInit; redirectPolicy?: "follow" }) => object): string[] {
  const requestInit: RequestInit = { redirect: "manual" };
  const following = make({ requestInit, redirectPolicy: "follow" }) as Record<string, unknown>;
  const same = make({ requestInit }) as Record<string, unknown>;
  const wrong: string[] = [];
  if (following._followRedirects !== true || same._followRedirects !== false)
    wrong.push(`${name}._followRedirects is no longer whether its redirectPolicy is "follow"`);
  if (following._requestInit !== requestInit) wrong.push(`${name}._requestInit is no longer its requestInit option`);
  return wrong;
}

describe("the SDK's private fields adapters/mcp/wire.ts reads for a transport's redirectPolicy", () => {
  it("StreamableHTTPClientTransport: _followRedirects, _requestInit", () => {
    expect(gone("StreamableHTTPClientTransport", (options) => new StreamableHTTPClientTransport(URL_, options))).toEqual([]);
  });

  it("SSEClientTransport: _followRedirects, _requestInit", () => {
    expect(gone("SSEClientTransport", (options) => new SSEClientTransport(URL_, options))).toEqual([]);
  });
});
