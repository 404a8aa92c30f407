/**
 * Hunt 28: what the model is shown of a tool result's content parts that are
 * not text. MCP results may carry images, audio, links to resources
 * (`resource_link`) and embedded resources (text, or a base64 `blob`). The
 * adapter showed "its text parts" only: beside a text part, every other part
 * was dropped without a word (the text of an embedded resource included);
 * with no text part, the parts were shown as they are, base64 and all, in
 * the model's context. Now every part is shown: text as it is, an embedded
 * text resource's text under its uri, a link as its name and uri, and binary
 * data named by its MIME type and size, never pasted.
 *
 * And parts whose `annotations.audience` leaves out the assistant (MCP: for
 * the user only) were shown to the model: they are left out of what it
 * sees, saying how many were.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { mcpTools } from "../../adapters/mcp/index.js";
import { ai, memoryStore } from "../../src/index.js";
import { deskModel } from "./fixtures/desk.js";
import { hunt13Server } from "./fixtures/hunt13-server.js";

/** 3,000 bytes of a PNG-like payload; its base64 is 4,000 characters the model must never be shown. */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(2_996, 7)]).toString("base64");
/** 1,001 bytes: base64 with padding, so the size is read right. */
const WAV = Buffer.alloc(1_001, 3).toString("base64");

const TOOLS: Tool[] = [
  { name: "snapshot", description: "A picture of the parcel.", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
  { name: "label", description: "Print a label.", inputSchema: { type: "object" } },
];

/** A desk over a server whose every call answers `result`; the model's tool message is what it was shown. */
async function shown(result: CallToolResult, name = "snapshot") {
  const world = await hunt13Server([TOOLS], () => result);
  const fn = ai("desk", { description: "Help.", input: { message: z.string() }, tools: await mcpTools(world.client) });
  const lm = deskModel({ name, input: {} });
  const store = memoryStore();
  const reply = await fn.conversation("c", { store, lm, approve: () => true }).send("Show me.");
  const message = lm.requests[1]!.messages.at(-1)!;
  expect(message).toMatchObject({ role: "tool", name });
  return { reply, message, text: message.content as string, store, calls: world.calls };
}

describe("a result's parts that are not text", () => {
  it("an image beside text is named by its MIME type and size, not dropped, and its base64 is never shown", async () => {
    const { text } = await shown({
      content: [
        { type: "text", text: "The parcel at the depot:" },
        { type: "image", data: PNG, mimeType: "image/png" },
      ],
    });
    expect(text).toContain("The parcel at the depot:");
    expect(text).toMatch(/image.*image\/png.*3,?000 bytes/);
    expect(text).not.toContain(PNG.slice(0, 40));
  });

  it("an image alone is not pasted as base64 into the model's context", async () => {
    const { text } = await shown({ content: [{ type: "image", data: PNG, mimeType: "image/png" }] });
    expect(text).not.toContain(PNG.slice(0, 40));
    expect(text).toMatch(/image.*image\/png.*3,?000 bytes/);
  });

  it("audio is named by its MIME type and size", async () => {
    const { text } = await shown({ content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }] });
    expect(text).not.toContain(WAV.slice(0, 40));
    expect(text).toMatch(/audio.*audio\/wav.*1,?001 bytes/);
  });

  it("a resource link is shown as its name and uri", async () => {
    const { text } = await shown(
      {
        content: [
          { type: "text", text: "Label printed." },
          { type: "resource_link", uri: "file:///labels/A-1042.pdf", name: "A-1042.pdf", mimeType: "application/pdf" },
        ],
      },
      "label",
    );
    expect(text).toContain("Label printed.");
    expect(text).toContain("A-1042.pdf");
    expect(text).toContain("file:///labels/A-1042.pdf");
  });

  it("an embedded text resource's text is kept, with its uri", async () => {
    const { text } = await shown({
      content: [
        { type: "text", text: "The carrier's notes:" },
        { type: "resource", resource: { uri: "carrier://notes/A-1042", mimeType: "text/plain", text: "Left at the depot on Tuesday." } },
      ],
    });
    expect(text).toContain("The carrier's notes:");
    expect(text).toContain("Left at the depot on Tuesday.");
    expect(text).toContain("carrier://notes/A-1042");
  });

  it("an embedded blob resource is named by its uri, MIME type and size, its base64 never shown", async () => {
    const { text } = await shown({
      content: [{ type: "resource", resource: { uri: "file:///scan.png", mimeType: "image/png", blob: PNG } }],
    });
    expect(text).not.toContain(PNG.slice(0, 40));
    expect(text).toContain("file:///scan.png");
    expect(text).toMatch(/image\/png.*3,?000 bytes/);
  });

  it("text parts alone are shown as before: joined by line breaks", async () => {
    const { text } = await shown({
      content: [
        { type: "text", text: "one" },
        { type: "text", text: "two" },
      ],
    });
    expect(text).toBe("one\ntwo");
  });

  it("what the model was shown is what the turn's records keep (JSON), without the base64", async () => {
    const result: CallToolResult = {
      content: [
        { type: "text", text: "Printed:" },
        { type: "image", data: PNG, mimeType: "image/png" },
      ],
    };
    const { text, store } = await shown(result, "label");
    const records = JSON.stringify(await store.read("c"));
    expect(records).not.toContain(PNG.slice(0, 40));
    expect(records).toContain(JSON.stringify(text).slice(1, -1));
  });

  it("an error result's image is named, not pasted, and its text kept", async () => {
    const { message, text } = await shown({
      content: [
        { type: "text", text: "Camera offline; last frame:" },
        { type: "image", data: PNG, mimeType: "image/png" },
      ],
      isError: true,
    });
    expect(message).toMatchObject({ isError: true });
    expect(text).toContain("Camera offline; last frame:");
    expect(text).toMatch(/image\/png/);
    expect(text).not.toContain(PNG.slice(0, 40));
  });
});

describe("parts for the user only (annotations.audience without the assistant)", () => {
  it("are not shown to the model; parts for the assistant, or with no audience, are", async () => {
    const { text } = await shown({
      content: [
        { type: "text", text: "for both" },
        { type: "text", text: "SECRET for the user", annotations: { audience: ["user"] } },
        { type: "text", text: "for the assistant", annotations: { audience: ["assistant"] } },
        { type: "text", text: "for anyone", annotations: { audience: ["user", "assistant"] } },
        { type: "image", data: PNG, mimeType: "image/png", annotations: { audience: ["user"] } },
      ],
    });
    expect(text).not.toContain("SECRET");
    expect(text).not.toContain("image/png");
    expect(text).toContain("for both");
    expect(text).toContain("for the assistant");
    expect(text).toContain("for anyone");
    // not dropped without a word: the model is told parts were left out for the user
    expect(text).toMatch(/2 parts? .*for the user/);
  });

  it("an error's part for the user only is not shown to the model either", async () => {
    const { message, text } = await shown({
      content: [
        { type: "text", text: "card declined" },
        { type: "text", text: "SECRET: card 4242 flagged for fraud", annotations: { audience: ["user"] } },
      ],
      isError: true,
    });
    expect(message).toMatchObject({ isError: true });
    expect(text).toContain("card declined");
    expect(text).not.toContain("SECRET");
  });
});
