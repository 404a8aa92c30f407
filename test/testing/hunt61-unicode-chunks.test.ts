/**
 * hunt 61: `scripted(…, { chunks: n })` streams a reply "in pieces of n
 * characters". It cut the text every n UTF-16 code units, so a character
 * outside the BMP (an emoji, a CJK extension ideograph, 𝔸) was split in two
 * and each half streamed as its own delta: a lone surrogate, which a UI
 * writing deltas out (TextEncoder, a socket, process.stdout) turns into "�".
 * A real provider's deltas are decoded text and never hold half a character.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, type TurnEvent } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const ask = { messages: [{ role: "user" as const, content: "<q>\nhi\n</q>" }], tools: [] };
const TEXT = "Shipped 📦 to 𝔸lice — 🇫🇷 ok";
const wellFormed = (s: string): boolean => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe("scripted: chunks of n characters never split a character", () => {
  for (const n of [1, 2, 3, 5]) {
    it(`chunks: ${n}: every delta is whole text, and written out as UTF-8 each reads back as the reply`, async () => {
      const deltas: string[] = [];
      const reply = await scripted([TEXT], { chunks: n }).generate(ask, { onText: (d) => deltas.push(d) });
      expect(reply.text).toBe(TEXT);
      expect(deltas.join("")).toBe(TEXT);
      for (const d of deltas) expect(wellFormed(d), JSON.stringify(d)).toBe(true);
      // a UI writing each delta out as UTF-8 (a socket, a page) shows what was sent
      const encoder = new TextEncoder();
      const bytes = deltas.map((d) => encoder.encode(d));
      const joined = new Uint8Array(bytes.reduce((a, b) => a + b.length, 0));
      let at = 0;
      for (const b of bytes) {
        joined.set(b, at);
        at += b.length;
      }
      expect(new TextDecoder().decode(joined)).toBe(TEXT);
    });
  }

  it("at most n characters (code points) a piece, and pieces of n while the text lasts", async () => {
    const deltas: string[] = [];
    await scripted([TEXT], { chunks: 3 }).generate(ask, { onText: (d) => deltas.push(d) });
    const points = deltas.map((d) => [...d].length);
    expect(points.slice(0, -1).every((p) => p === 3)).toBe(true);
    expect(points.at(-1)).toBeLessThanOrEqual(3);
  });

  it("an AI function streaming it in the reply form emits text events of whole characters", async () => {
    const f = ai("f", { description: "d", input: { q: z.string() }, output: z.string() });
    const stream = f.stream("hi", { lm: scripted([TEXT], { form: "reply", chunks: 1 }) });
    const texts: string[] = [];
    for await (const e of stream as AsyncIterable<TurnEvent>) if (e.type === "text") texts.push(e.delta);
    expect(texts.join("")).toBe(TEXT);
    for (const d of texts) expect(wellFormed(d), JSON.stringify(d)).toBe(true);
  });
});
