/**
 * Tool calls in "pythonic" form: Llama 3.2 and Llama 4 call tools by
 * writing a Python list of calls as their whole reply,
 * `[get_weather(city="Paris", days=3)]`, their keyword arguments Python
 * literals. Read strictly, so no answer is taken for a call: the reply
 * (a code fence around it allowed) must be nothing but a non-empty list of
 * calls, each an identifier with keyword arguments only, each argument a
 * Python literal (a string, a number, True, False, None, or a list, tuple
 * or dict of them, a dict's keys strings). Anything else is no call list.
 *
 * Read as calls with tools offered as text (text-tools.ts); refused with
 * tools offered natively, where the server should have read them
 * (providers/common.ts refuseTextToolCalls).
 *
 * @example
 * pythonicCalls('[get_weather(city="Paris", days=3)]'); // [{ name: "get_weather", input: { city: "Paris", days: 3 } }]
 * pythonicCalls("Sure: [get_weather(city='Paris')]"); // undefined
 */

/** One call read: its name and its arguments as JSON values. */
export interface PythonicCall {
  name: string;
  input: Record<string, unknown>;
}

/** A reply that is one code fence and nothing else; what it holds is the first group. */
export const FENCED = /^\s*\x60{3}[\w-]*[ \t]*\n([\s\S]*?)\n?\s*\x60{3}\s*$/;

/** Llama 3.1's marker before a call it writes, or Llama 4's (which closes it with `<|python_end|>`). */
const CALL_MARKER = /^<\|python_(tag|start)\|>\s*/;

/**
 * A call's text (trimmed) without the markers Llama writes around it where the server shows its special tokens (as
 * llama.cpp can, and vLLM does for Llama 4's: its llama4_pythonic parser strips them, "Llama 4 model sometime will
 * output those tokens"): Llama 3.1's `<|python_tag|>` before it, Llama 4's `<|python_start|>` before and
 * `<|python_end|>` after. Read with them, the call was the answer's text, the tool never run.
 *
 * @example
 * withoutCallMarkers('<|python_start|>[get_weather(city="Paris")]<|python_end|>'); // '[get_weather(city="Paris")]'
 */
export function withoutCallMarkers(text: string): string {
  const body = text.trim();
  const marker = CALL_MARKER.exec(body);
  if (marker === null) return body;
  const rest = body.slice(marker[0].length);
  return marker[1] === "start" ? rest.replace(/\s*<\|python_end\|>$/, "") : rest;
}

/** Where reading stopped; thrown to end it (the text is no call list). */
class NotPythonic extends Error {}

/** The calls `text` is made of, in order, or undefined when it is anything but a list of calls (see above). */
export function pythonicCalls(text: string): PythonicCall[] | undefined {
  const body = withoutCallMarkers(FENCED.exec(text)?.[1] ?? text);
  if (!body.startsWith("[") || !body.endsWith("]")) return undefined;
  try {
    return new Reader(body).calls();
  } catch (e) {
    if (e instanceof NotPythonic) return undefined;
    throw e;
  }
}

/** Python's one-character escapes in a string literal. */
const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "0": "\0",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
  "\n": "",
};

/**
 * A call block's body written loosely (tools as text, text-tools.ts): a
 * Python dict (`{'name': 'x', 'input': {'a': True}}`, as small models write
 * it), or JSON with trailing commas. Read as the object it plainly is: its
 * strings in either quote, JSON's and Python's true, false and null, and
 * trailing commas. Undefined when the whole text is not one such object.
 *
 * @example
 * looseObject("{'name': 'lookup_order', 'input': {'order_id': 'A-1042',},}"); // { name: "lookup_order", input: { order_id: "A-1042" } }
 */
export function looseObject(text: string): Record<string, unknown> | undefined {
  const body = text.trim();
  return body.startsWith("{") ? (looseJson(body) as Record<string, unknown> | undefined) : undefined;
}

/** An object or a list written loosely (see looseObject), as a JSON value; undefined when the whole text is not one. */
export function looseJson(text: string): unknown {
  const body = text.trim();
  if (!body.startsWith("{") && !body.startsWith("[")) return undefined;
  try {
    return new Reader(body, true).whole();
  } catch (e) {
    if (e instanceof NotPythonic) return undefined;
    throw e;
  }
}

const NAME = /[A-Za-z_][\w.-]*/y;
const NUMBER = /[+-]?(?:\d[\d_]*(?:\.\d[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?/y;
/** What may follow a literal: white space, then `,` or a closing bracket. */
const AFTER_VALUE = /\s*[,)\]}]/y;

class Reader {
  private at = 0;
  /** How deep literals nest (a bound, so a hostile reply cannot overflow the stack). */
  private depth = 0;

  /** `jsonWords`: true, false and null are read too (a loosely written JSON object). */
  constructor(
    private readonly text: string,
    private readonly jsonWords = false,
  ) {}

  /** One value, the whole text. */
  whole(): unknown {
    const value = this.value();
    if (this.at !== this.text.length) throw new NotPythonic();
    return value;
  }

  calls(): PythonicCall[] {
    const calls: PythonicCall[] = [];
    this.expect("[");
    for (;;) {
      this.space();
      if (this.peek() === "]" && calls.length > 0) break;
      calls.push(this.call());
      this.space();
      if (this.peek() === ",") {
        this.at++;
        continue;
      }
      break;
    }
    this.expect("]");
    if (this.at !== this.text.length || calls.length === 0) throw new NotPythonic();
    return calls;
  }

  private call(): PythonicCall {
    const name = this.match(NAME);
    this.space();
    this.expect("(");
    const input: Record<string, unknown> = {};
    for (;;) {
      this.space();
      if (this.peek() === ")") break;
      const key = this.match(NAME);
      if (key.includes(".") || key.includes("-") || Object.hasOwn(input, key)) throw new NotPythonic(); // (not a keyword; one given twice)
      this.space();
      this.expect("=");
      this.space();
      Object.defineProperty(input, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.space();
      if (this.peek() !== ",") break;
      this.at++;
    }
    this.expect(")");
    return { name, input };
  }

  private value(): unknown {
    if (++this.depth > 64) throw new NotPythonic();
    try {
      const c = this.peek();
      if (c === '"' || c === "'") {
        const text = this.string(c);
        this.ended();
        return text;
      }
      if (c === "[") return this.items("[", "]");
      if (c === "(") return this.items("(", ")");
      if (c === "{") return this.dict();
      const words: (readonly [string, boolean | null])[] = [
        ["True", true],
        ["False", false],
        ["None", null],
      ];
      if (this.jsonWords) words.push(["true", true], ["false", false], ["null", null]);
      for (const [word, value] of words) {
        if (this.text.startsWith(word, this.at)) {
          this.at += word.length;
          this.ended();
          return value;
        }
      }
      const digits = this.match(NUMBER).replaceAll("_", "");
      this.ended();
      const n = Number(digits);
      if (!Number.isFinite(n)) throw new NotPythonic();
      return n;
    } finally {
      this.depth--;
    }
  }

  /** A literal must be followed by a separator: `1+2`, `"a" "b"`, `x.y` are expressions, no literal. */
  private ended(): void {
    if (this.depth <= 1 && this.at === this.text.length) return; // (the whole text's one value)
    AFTER_VALUE.lastIndex = this.at;
    if (!AFTER_VALUE.test(this.text)) throw new NotPythonic();
  }

  private string(quote: string): string {
    if (this.text.startsWith(quote.repeat(3), this.at)) throw new NotPythonic(); // (triple-quoted: not read)
    this.at++;
    let out = "";
    for (;;) {
      const c = this.text[this.at++];
      if (c === undefined || c === "\n") throw new NotPythonic();
      if (c === quote) break;
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = this.text[this.at++];
      if (e === undefined) throw new NotPythonic();
      if (e in ESCAPES) out += ESCAPES[e];
      else if (e === "x" || e === "u" || e === "U") {
        const size = e === "x" ? 2 : e === "u" ? 4 : 8;
        const hex = this.text.slice(this.at, this.at + size);
        if (!new RegExp(`^[0-9a-fA-F]{${size}}$`).test(hex)) throw new NotPythonic();
        const code = Number.parseInt(hex, 16);
        if (code > 0x10ffff) throw new NotPythonic();
        out += String.fromCodePoint(code);
        this.at += size;
      } else out += `\\${e}`; // (Python keeps an unknown escape as written)
    }
    return out;
  }

  private items(open: string, close: string): unknown[] {
    this.expect(open);
    const items: unknown[] = [];
    for (;;) {
      this.space();
      if (this.peek() === close) break;
      items.push(this.value());
      this.space();
      if (this.peek() !== ",") break;
      this.at++;
    }
    this.expect(close);
    this.ended();
    return items;
  }

  private dict(): Record<string, unknown> {
    this.expect("{");
    const out: Record<string, unknown> = {};
    for (;;) {
      this.space();
      if (this.peek() === "}") break;
      const c = this.peek();
      if (c !== '"' && c !== "'") throw new NotPythonic(); // (JSON keys are text)
      const key = this.string(c);
      this.space();
      this.expect(":");
      this.space();
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.space();
      if (this.peek() !== ",") break;
      this.at++;
    }
    this.expect("}");
    this.ended();
    return out;
  }

  private peek(): string | undefined {
    return this.text[this.at];
  }

  private space(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at++;
  }

  private expect(c: string): void {
    if (this.text[this.at] !== c) throw new NotPythonic();
    this.at++;
  }

  private match(pattern: RegExp): string {
    pattern.lastIndex = this.at;
    const m = pattern.exec(this.text);
    if (m === null) throw new NotPythonic();
    this.at += m[0].length;
    return m[0];
  }
}
