/**
 * phistory() showed only calls that answered: a call that failed (the provider refused it, a tool failed with
 * toolErrors "raise", the model's reply could not be read) was missing from the very history a user prints to
 * debug it, and the one shown was an older call that had worked. Now it is shown, with its error's code and
 * message (never its cause: the provider's key stays out, as the provider's error message already leaves it out).
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, clearHistory, openai, phistory, tool } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";
import { eachTestServer, type MockServer } from "../providers/server.js";

afterEach(clearHistory);

let server: MockServer;
eachTestServer((s) => (server = s));

const blocks = (text: string): number => (text.match(/\] desk → /g) ?? []).length;

describe("phistory and a call that failed", () => {
  it("a provider error: the call is shown with its code, and the API key is not", async () => {
    clearHistory();
    const secret = "sk-hunt74-very-secret-key";
    server.reply({ status: 401, json: { error: { message: `Incorrect API key provided: ${secret}.`, type: "invalid_request_error" } } });
    const lm = openai({ model: "gpt-4.1-mini", apiKey: secret, baseURL: `${server.url}/v1` });
    const desk = ai("desk", { description: "Help.", input: { q: z.string() } });
    await expect(desk.using({ lm })("Where is A-1042?")).rejects.toMatchObject({ code: "provider-auth" });
    const text = phistory();
    expect(blocks(text)).toBe(1);
    expect(text).toContain("Where is A-1042?");
    expect(text).toContain("provider-auth");
    expect(text).not.toContain(secret);
  });

  it("a tool that failed with toolErrors raise: the call, its tool call and tool-failed are shown", async () => {
    clearHistory();
    const lookup = tool("lookup", { description: "Looks up.", input: { id: z.string() }, effects: "reads" }, () => {
      throw new Error("database down");
    });
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, tools: [lookup] });
    const lm = scripted([{ toolCalls: [{ name: "lookup", input: { id: "A-1042" } }] }]);
    await expect(desk.using({ lm, toolErrors: "raise" })("Where is A-1042?")).rejects.toMatchObject({ code: "tool-failed" });
    const text = phistory();
    expect(blocks(text)).toBe(1);
    expect(text).toContain('[tool call lookup({"id":"A-1042"})]');
    expect(text).toContain("tool-failed");
    expect(text).toContain("database down");
  });

  it("an unreadable reply (output-invalid): the reply the model gave and the code are shown, after an older call", async () => {
    clearHistory();
    const desk = ai("desk", { description: "Help.", input: { q: z.string() }, output: z.number() });
    await desk.using({ lm: scripted(["<result>\n1\n</result>"]) })("first");
    await expect(desk.using({ lm: scripted(["not a number", "still not"]) })("second")).rejects.toMatchObject({ code: "output-invalid" });
    const text = phistory();
    expect(blocks(text)).toBe(1);
    expect(text).toContain("second");
    expect(text).toContain("still not");
    expect(text).toContain("output-invalid");
    expect(blocks(phistory(2))).toBe(2);
  });
});
