/**
 * A tool that throws a huge message (a driver that puts a whole 10 MB query or response body in its error) had it
 * shown to the model in full (a request no provider takes: a 400 at every step, or a fortune in tokens), kept whole
 * in the journal's `done` record (read back by every resume), streamed and handed to every `toolResult` hook; hunt
 * 78 bounded an MCP tool's, an ordinary `tool()`'s was not. Decided: a tool's error text, wherever it is shown or
 * journaled (native and prompt-mode tools alike), is capped at 100,000 characters: its first part, then a plain
 * note of how many characters were left out. With toolErrors "raise", `tool-failed` says the same and keeps the
 * tool's own error (with its code) as its cause.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, memoryStore, openai, tool, type Plugin } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { completion } from "../providers/fixtures/hunt51-wire.js";
import { eachTestServer, type MockServer } from "../providers/server.js";
import { toolResults } from "./fixtures.js";

const CAP = 100_000;
const HEAD = "the warehouse answered 500: ";
const HUGE = `${HEAD}${"x".repeat(10_000_000)}`;
/** What is left out of HUGE when the model is shown at most CAP characters (the note included): most of it. */
const LEFT_OUT = /([\d,]+) characters left out/;

/** A half of a surrogate pair without its other half (what String.prototype.isWellFormed finds). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

class DriverError extends Error {
  readonly code = "E_WAREHOUSE";
}

function lookupDesk(thrown: () => Error = () => new DriverError(HUGE)) {
  const lookup = tool("lookup", { description: "Looks the order up.", input: { id: z.string() }, effects: "reads" }, () => {
    throw thrown();
  });
  return ai("desk", { description: "Help.", input: { q: z.string() }, tools: [lookup] });
}
const replies = () => [{ toolCalls: [{ name: "lookup", input: { id: "A-1042" } }] }, "sorry"];

/** Checks one text the capped error shows up in (`prefix` before it): bounded, its head kept, and the cut said. */
function capped(text: string, prefix = ""): void {
  expect(text.length).toBeLessThanOrEqual(prefix.length + CAP);
  expect(text.startsWith(`${prefix}${HEAD}xxxx`)).toBe(true);
  const left = LEFT_OUT.exec(text);
  expect(left).not.toBeNull();
  const said = Number(left![1]!.replaceAll(",", ""));
  // what was kept and what was left out make the whole message
  expect(said).toBeGreaterThan(HUGE.length - CAP);
  expect(said).toBeLessThan(HUGE.length);
  expect(text.slice(prefix.length).indexOf("x".repeat(CAP))).toBe(-1);
}

let server: MockServer;
eachTestServer((s) => (server = s));

describe("a tool that throws a 10 MB message", () => {
  it("native tools: the model, the journal, the stream and the toolResult hooks are given it capped", async () => {
    const seenByPlugin: string[] = [];
    const watcher: Plugin = {
      name: "watcher",
      version: "1",
      hooks: { toolResult: (r) => void (r.error !== undefined && seenByPlugin.push(r.error)) },
    };
    const lm = scripted(replies());
    const store = memoryStore();
    expect(
      await lookupDesk()
        .conversation("c1", { store, lm, plugins: [watcher] })
        .send("Where is A-1042?"),
    ).toBe("sorry");
    const [[name, content]] = toolResults(lm.requests[1]) as [[string, string]];
    expect(name).toBe("lookup");
    capped(content, "Error: ");
    const done = (await store.read("c1")).find((r) => r.kind === "tool") as { error?: string };
    capped(done.error!);
    expect(content).toBe(`Error: ${done.error}`);
    expect(seenByPlugin).toEqual([done.error]);
  });

  it("a stream's tool_result event says it capped too", async () => {
    const lm = scripted(replies());
    const s = lookupDesk().using({ lm }).stream("Where is A-1042?");
    const errors: string[] = [];
    for await (const e of s) if (e.type === "tool_result" && e.error !== undefined) errors.push(e.error);
    expect(await s).toBe("sorry");
    expect(errors).toHaveLength(1);
    capped(errors[0]!);
  });

  it("prompt-mode tools (a model without native tools): the tool's error in the text it reads is capped", async () => {
    const lm = scripted(replies(), { nativeTools: false });
    expect(await lookupDesk().using({ lm })("Where is A-1042?")).toBe("sorry");
    const sent = JSON.stringify(lm.requests[1]!.messages);
    expect(sent.length).toBeLessThan(CAP + 20_000);
    expect(sent).toContain(HEAD);
    expect(sent).toMatch(LEFT_OUT);
  });

  it("a real OpenAI request: the body sent on the wire holds the capped error, not 10 MB", async () => {
    server.reply(
      {
        json: completion(
          { tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: '{"id":"A-1042"}' } }] },
          "tool_calls",
        ),
      },
      { json: completion({ content: "sorry" }) },
    );
    const lm = openai({ model: "gpt-4.1-mini", apiKey: "sk-test", baseURL: `${server.url}/v1`, maxRetries: 0 });
    expect(await lookupDesk().using({ lm })("Where is A-1042?")).toBe("sorry");
    const messages = server.requests[1]!.body.messages as { role: string; content: string }[];
    const toolMessage = messages.find((m) => m.role === "tool")!;
    capped(toolMessage.content, "Error: ");
  });

  it("toolErrors raise: tool-failed says it capped, and keeps the tool's own error (its code) as the cause", async () => {
    const lm = scripted(replies());
    const e = await lookupDesk()
      .using({ lm, toolErrors: "raise" })("Where is A-1042?")
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FunctaiError);
    expect((e as FunctaiError).code).toBe("tool-failed");
    capped((e as FunctaiError).message, "desk/lookup failed: ");
    expect(((e as FunctaiError).cause as DriverError).code).toBe("E_WAREHOUSE");
    expect(((e as FunctaiError).cause as DriverError).message).toBe(HUGE);
  });

  it("a resumed turn replays the capped error as it was sent: no reply is paid for again", async () => {
    const pay = tool("pay", { description: "Pays.", input: { amount: z.number() }, effects: "changes" }, () => "paid");
    const lookup = tool("lookup", { description: "Looks the order up.", input: { id: z.string() }, effects: "reads" }, () => {
      throw new DriverError(HUGE);
    });
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [lookup, pay] });
    // three replies, each paid once: a resumed request that differed from the one sent would ask for a fourth
    const lm = scripted([
      { toolCalls: [{ name: "lookup", input: { id: "A-1042" } }] },
      { toolCalls: [{ name: "pay", input: { amount: 5 } }] },
      "paid it",
    ]);
    const store = memoryStore();
    const chat = desk.conversation("c2", { store, lm, approve: "changes" });
    await expect(chat.send("Pay for A-1042")).rejects.toMatchObject({ code: "turn-waiting" });
    const turn = (await chat.turns()).at(-1)!;
    expect(await turn.approve({ by: "maria" })).toBe("paid it");
    expect(lm.requests).toHaveLength(3);
    capped(toolResults(lm.requests[2])[0]![1], "Error: ");
  });

  it("a message of emoji is never cut inside a character (no lone surrogate is sent)", async () => {
    for (const pad of ["", "a"]) {
      const lm = scripted(replies());
      await lookupDesk(() => new Error(`${pad}${"😀".repeat(5_000_000)}`)).using({ lm })("Where is A-1042?");
      const [[, content]] = toolResults(lm.requests[1]) as [[string, string]];
      expect(content.length).toBeLessThanOrEqual("Error: ".length + CAP);
      expect(content).toMatch(LEFT_OUT);
      expect(LONE_SURROGATE.test(content)).toBe(false);
    }
  });

  it("a message at the cap is not cut", async () => {
    const exact = `${HEAD}${"y".repeat(CAP - HEAD.length)}`;
    const lm = scripted(replies());
    await lookupDesk(() => new Error(exact)).using({ lm })("Where is A-1042?");
    expect(toolResults(lm.requests[1])).toEqual([["lookup", `Error: ${exact}`]]);
  });
});
