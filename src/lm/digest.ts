/**
 * The digest journals key replies and tool calls by: a cyrb53-style hash
 * of a text as 22 base-36 characters, the same string in every process and
 * every version. `digestJson` digests a text followed by a value's JSON
 * text, feeding the JSON as it would read without making it.
 */

// cyrb53-style string hash, two 32-bit lanes per seed, deterministic across platforms. Both seeds (1
// and 2) run in one pass over the text, which is fed in pieces (hashed as if joined, never joined): a
// digest's lanes are these, reset, fed, then finished.
let a1 = 0;
let a2 = 0;
let b1 = 0;
let b2 = 0;
/** How many digests were begun (mod 2^32): one begun inside another (a getter that digests) is seen by it (see digestJson). */
let begun = 0;

function reset(): void {
  begun = (begun + 1) | 0;
  a1 = 0xdeadbeef ^ 1;
  a2 = 0x41c6ce57 ^ 1;
  b1 = 0xdeadbeef ^ 2;
  b2 = 0x41c6ce57 ^ 2;
}

/** The 53-bit hash of one seed's two lanes. */
function finish(h1: number, h2: number): number {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

const SIX = 36 ** 6; // 2,176,782,336: below it, six base-36 digits

/** `Math.floor(n / 36⁶)` exactly: the float quotient's rounding corrected by the remainder's range. */
function highSix(n: number): number {
  const q = Math.floor(n / SIX);
  const r = n - q * SIX;
  return r < 0 ? q - 1 : r >= SIX ? q + 1 : q;
}

/**
 * `n.toString(36).padStart(11, "0")` for an integer 0 ≤ n < 2^53, the same
 * string, several times faster: V8's radix conversion of a large double is
 * slow, of a small integer fast. n = q·36⁶ + r, exactly (the quotient's
 * float rounding is corrected by r's range), q < 2^53 / 36⁶ < 36⁵.
 */
function base36(n: number): string {
  const q = highSix(n);
  const r = n - q * SIX;
  const high = q.toString(36);
  const low = r.toString(36);
  return "00000".slice(high.length) + high + "000000".slice(low.length) + low;
}

/** The digest of everything fed since the last reset. */
const fedDigest = (): string => base36(finish(a1, a2)) + base36(finish(b1, b2));

/** A digest's 22 characters as character codes: what a hash chain feeds on, made into a string only when asked. */
export type DigestCodes = Uint8Array;
/** How many characters a digest has. */
export const DIGEST_LENGTH = 22;

const DIGIT_CODES = Uint8Array.from("0123456789abcdefghijklmnopqrstuvwxyz", (c) => c.charCodeAt(0));

/** `base36(n)`'s 11 character codes, written to `out` from `at` on. */
function writeBase36(n: number, out: DigestCodes, at: number): void {
  let q = highSix(n);
  let r = n - q * SIX;
  // r < 36^6 < 2^32 and q < 36^5: exact in unsigned 32-bit division
  for (let i = at + 10; i > at + 4; i--) {
    out[i] = DIGIT_CODES[r % 36]!;
    r = (r / 36) >>> 0;
  }
  for (let i = at + 4; i >= at; i--) {
    out[i] = DIGIT_CODES[q % 36]!;
    q = (q / 36) >>> 0;
  }
}

/** The digest of everything fed since the last reset, as character codes in `out`. */
function fedCodes(out: DigestCodes): void {
  writeBase36(finish(a1, a2), out, 0);
  writeBase36(finish(b1, b2), out, 11);
}

/** A digest's characters as codes, in `out` (for `digestJsonCodes`). */
export function digestCodes(digest: string, out: DigestCodes): void {
  for (let i = 0; i < DIGEST_LENGTH; i++) out[i] = digest.charCodeAt(i);
}

/**
 * The string of a digest given as codes. A digest's 22 are passed as
 * arguments: `fromCharCode.apply` with a typed array copies it into an
 * argument list first (about 3× the time, and an array per key).
 */
export function codesText(codes: DigestCodes): string {
  if (codes.length !== DIGEST_LENGTH) return String.fromCharCode.apply(null, codes as unknown as number[]);
  const c = codes as unknown as number[];
  return String.fromCharCode(c[0]!, c[1]!, c[2]!, c[3]!, c[4]!, c[5]!, c[6]!, c[7]!, c[8]!, c[9]!, c[10]!, c[11]!, c[12]!, c[13]!, c[14]!, c[15]!, c[16]!, c[17]!, c[18]!, c[19]!, c[20]!, c[21]!);
}

/** The digest of `head + tail`, without joining them. */
function digest2(head: string, tail: string): string {
  reset();
  feed(head);
  feed(tail);
  return fedDigest();
}

/** A 106-bit digest of `text`, as 22 base-36 characters. */
export function digest(text: string): string {
  return digest2(text, "");
}

/**
 * Feeds every character of `text` as it is (a string, or a digest's
 * characters given as codes), with the lanes in locals.
 */
function feed(text: string | DigestCodes): void {
  const codes = typeof text === "string" ? undefined : text;
  let x1 = a1;
  let x2 = a2;
  let y1 = b1;
  let y2 = b2;
  for (let i = 0; i < text.length; i++) {
    const ch = codes === undefined ? (text as string).charCodeAt(i) : codes[i]!;
    x1 = Math.imul(x1 ^ ch, 2654435761);
    x2 = Math.imul(x2 ^ ch, 1597334677);
    y1 = Math.imul(y1 ^ ch, 2654435761);
    y2 = Math.imul(y2 ^ ch, 1597334677);
  }
  a1 = x1;
  a2 = x2;
  b1 = y1;
  b2 = y2;
}

function feedChar(ch: number): void {
  a1 = Math.imul(a1 ^ ch, 2654435761);
  a2 = Math.imul(a2 ^ ch, 1597334677);
  b1 = Math.imul(b1 ^ ch, 2654435761);
  b2 = Math.imul(b2 ^ ch, 1597334677);
}

const HEX = "0123456789abcdef";
const SHORT_ESCAPES: Record<number, number> = { 8: 98, 9: 116, 10: 110, 12: 102, 13: 114 }; // \b \t \n \f \r

/** `\uXXXX` (lowercase hex), as JSON.stringify writes a control character or a lone surrogate. */
function feedUnicodeEscape(ch: number): void {
  feedChar(92);
  feedChar(117);
  for (let shift = 12; shift >= 0; shift -= 4) feedChar(HEX.charCodeAt((ch >> shift) & 15));
}

/** Feeds `text[i]`, a control character or a surrogate (feedString's loop escapes the rest itself), as JSON.stringify writes it. */
function feedEscaped(text: string, i: number): void {
  const ch = text.charCodeAt(i);
  if (ch < 0x20) {
    const short = SHORT_ESCAPES[ch];
    if (short === undefined) feedUnicodeEscape(ch);
    else {
      feedChar(92);
      feedChar(short);
    }
  } else {
    // a surrogate: kept when it is half of a pair, escaped when it stands alone
    const paired =
      ch <= 0xdbff ? i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 : i > 0 && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800;
    if (paired) feedChar(ch);
    else feedUnicodeEscape(ch);
  }
}

/**
 * Feeds `text` as a JSON string: quoted and escaped exactly as JSON.stringify
 * does (lone surrogates as `\uXXXX`). One pass with the lanes in locals: a
 * quote or a backslash (JSON text inside a string, as a tool's output in a
 * message, is full of them) is escaped in the loop; only a control
 * character or a surrogate leaves it (feedEscaped).
 */
function feedString(text: string): void {
  let x1 = Math.imul(a1 ^ 34, 2654435761);
  let x2 = Math.imul(a2 ^ 34, 1597334677);
  let y1 = Math.imul(b1 ^ 34, 2654435761);
  let y2 = Math.imul(b2 ^ 34, 1597334677);
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch < 0x20 || (ch & 0xf800) === 0xd800) {
      a1 = x1;
      a2 = x2;
      b1 = y1;
      b2 = y2;
      feedEscaped(text, i);
      x1 = a1;
      x2 = a2;
      y1 = b1;
      y2 = b2;
      continue;
    }
    if (ch === 34 || ch === 92) {
      x1 = Math.imul(x1 ^ 92, 2654435761);
      x2 = Math.imul(x2 ^ 92, 1597334677);
      y1 = Math.imul(y1 ^ 92, 2654435761);
      y2 = Math.imul(y2 ^ 92, 1597334677);
    }
    x1 = Math.imul(x1 ^ ch, 2654435761);
    x2 = Math.imul(x2 ^ ch, 1597334677);
    y1 = Math.imul(y1 ^ ch, 2654435761);
    y2 = Math.imul(y2 ^ ch, 1597334677);
  }
  a1 = Math.imul(x1 ^ 34, 2654435761);
  a2 = Math.imul(x2 ^ 34, 1597334677);
  b1 = Math.imul(y1 ^ 34, 2654435761);
  b2 = Math.imul(y2 ^ 34, 1597334677);
}

/** Deeper than this, the JSON text is made after all (JSON.stringify reports a cycle as it always did). */
const MAX_DEPTH = 64;

/** A value JSON.stringify leaves out of an object, and writes as `null` in an array. */
const omitted = (v: unknown): boolean => v === undefined || typeof v === "function" || typeof v === "symbol";

/**
 * Feeds `value` as JSON.stringify would write it. False (part of it fed)
 * for what it does not write itself: an object with `toJSON` (a Date), or
 * other than a plain object or array (a Map, a boxed string), a bigint, or
 * nesting deeper than MAX_DEPTH; the caller then hashes the JSON text.
 */
function feedJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
      feedString(value);
      return true;
    case "number":
      feed(Number.isFinite(value) ? String(value) : "null");
      return true;
    case "boolean":
      feed(value ? "true" : "false");
      return true;
    case "object": {
      if (value === null) {
        feed("null");
        return true;
      }
      if (depth > MAX_DEPTH) return false;
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype || typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
        feedChar(91);
        for (let i = 0; i < value.length; i++) {
          if (i > 0) feedChar(44);
          const item: unknown = value[i];
          if (omitted(item)) feed("null");
          else if (!feedJson(item, depth + 1)) return false;
        }
        feedChar(93);
        return true;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
      feedChar(123);
      let first = true;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const item: unknown = (value as Record<string, unknown>)[key];
        if (omitted(item)) continue;
        if (!first) feedChar(44);
        first = false;
        feedString(key);
        feedChar(58);
        if (!feedJson(item, depth + 1)) return false;
      }
      feedChar(125);
      return true;
    }
    default:
      return false;
  }
}

/**
 * `digest2(head, JSON.stringify(value))`, the same string, without making
 * the JSON text of a plain object or array (anything else: made and hashed,
 * its getters then read a second time). Reading the value may run code (a
 * getter) that makes a digest of its own, over these lanes: then the text
 * is made and hashed after all.
 */
export function digestJson(head: string, value: unknown): string {
  if (typeof value === "object" && value !== null) {
    reset();
    const mine = begun;
    feed(head);
    if (feedJson(value, 0) && begun === mine) return fedDigest();
  }
  return digest2(head, JSON.stringify(value));
}

/**
 * `digestJson(head, value)` for a `head` given as a digest's codes, the
 * result written to `out` as codes (it may be `head` itself): a hash chain
 * (fingerprint.ts) extends its last digest without making its string.
 */
export function digestJsonCodes(head: DigestCodes, value: unknown, out: DigestCodes): void {
  if (typeof value === "object" && value !== null) {
    reset();
    const mine = begun;
    feed(head);
    if (feedJson(value, 0) && begun === mine) return fedCodes(out);
  }
  const text = JSON.stringify(value); // (made before the lanes are reset: a toJSON or getter may digest too)
  reset();
  feed(head);
  feed(text);
  fedCodes(out);
}
