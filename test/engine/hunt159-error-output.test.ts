/**
 * Hunt 159: a tool output JSON writes less what it holds, without a word, though it is not written `{}`.
 *
 * A Node system error (what `fs.readFile` of a missing file throws): its `code`, `errno`, `syscall` and `path` are
 * own enumerable keys, its message is not. A tool's `catch (e) { return { error: e } }` reached the model and the
 * journal as `{"error":{"errno":-2,"code":"ENOENT","syscall":"open","path":"…"}}`, what went wrong left out. (An Error
 * with no own keys, written `{}`, was refused already.) Such an output is now refused as every output that is not
 * JSON, naming where and what the error says. Thrown, the same error was told by its message all along (a guard).
 *
 * A getter whose value is a function: JSON leaves the key out, and the check for functions read data properties only
 * (a getter is never read twice). What a getter gives is now looked at by the one JSON.stringify that writes the
 * output (its replacer is given the getter's value), so it is refused too, and a getter is still read once: the
 * checks for what JSON writes `{}` or `null` read the output again, getters too, and one that threw the second time
 * had a good output refused with its error. Those are now made in that one writing when the output has a getter.
 *
 * A thrown error whose reason is in its cause: a `fetch` that cannot connect throws "fetch failed", the reason only in
 * its cause, and a connect to a host of two addresses rejects with an AggregateError whose message is empty. The model
 * and the journal were told "fetch failed" and "AggregateError". They are now told what the cause and the errors say.
 */
import { readFile } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, FunctaiError, memoryStore, tool } from "../../src/index.js";
import type { ToolRecord } from "../../src/records/types.js";
import { scripted } from "../../src/testing/index.js";
import { toolResults } from "./fixtures.js";

const MISSING = join(tmpdir(), "functai-hunt159-no-such-file.json");

/** The error a real `readFile` of a missing file rejects with. */
async function enoent(): Promise<Error> {
  const e = await readFile(MISSING, "utf8").then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(e).toBeInstanceOf(Error);
  expect(e).toMatchObject({ code: "ENOENT", syscall: "open", path: MISSING });
  return e as Error;
}

/** A desk whose `load` tool (reading) runs `body`. */
function desk(body: () => unknown, toolErrors?: "raise") {
  const load = tool("load", { description: "Load a file.", input: { name: z.string() }, effects: "reads" }, body);
  return ai("desk", { description: "Answer.", input: { q: z.string() }, tools: [load], ...(toolErrors && { toolErrors }) });
}
const replies = () => scripted([{ toolCalls: [{ name: "load", input: { name: "a" } }] }, "done"]);

/** What the model was told of the call, and the call's `done` record, for a conversation of `fn`. */
async function told(fn: ReturnType<typeof desk>): Promise<{ content: string; done: ToolRecord }> {
  const store = memoryStore();
  const lm = replies();
  expect(await fn.conversation("c", { store, lm }).send("go")).toBe("done");
  const [[, content]] = toolResults(lm.requests[1]) as [[string, string]];
  const done = (await store.read("c")).find((r) => r.kind === "tool" && r.state === "done") as ToolRecord;
  return { content, done };
}

describe("hunt 159: a Node system error in a tool's output", () => {
  // Failed before the fix: the model was shown {"error":{"errno":-2,"code":"ENOENT",...}} and the journal kept it so.
  for (const [name, output, where] of [
    ["under a key", (e: Error) => ({ error: e }), "error"],
    ["as the output itself", (e: Error) => e, ""],
    ["as an array's item", (e: Error) => ({ results: ["ok", e] }), "results[1]"],
  ] as const)
    it(`${name}: refused, naming where and what it says`, async () => {
      const e = await enoent();
      const { content, done } = await told(desk(() => output(e)));
      const why = `${where === "" ? "" : `${where} is `}an Error (${JSON.stringify(e.message)}), which JSON writes without its message: throw it, or return its message`;
      expect(content).toBe(`Error: its output is not JSON (${why}); return plain data`);
      expect(done.error).toBe(`its output is not JSON (${why}); return plain data`);
      expect(done).not.toHaveProperty("output");
    });

  it('with toolErrors "raise": tool-failed, saying the error\'s message', async () => {
    const e = await enoent();
    const error = await desk(() => ({ error: e }), "raise")("go", { lm: replies() }).catch((x: unknown) => x);
    expect(error).toBeInstanceOf(FunctaiError);
    expect(error).toMatchObject({ code: "tool-failed", message: expect.stringContaining(`error is an Error (${JSON.stringify(e.message)})`) });
  });

  it("guard: one whose message is made an own key is kept as written", async () => {
    const e = await enoent();
    const { content, done } = await told(desk(() => ({ error: { ...e, message: e.message } })));
    expect(JSON.parse(content)).toEqual({
      error: { errno: (e as { errno?: number }).errno, code: "ENOENT", syscall: "open", path: MISSING, message: e.message },
    });
    expect(done.output).toEqual(JSON.parse(content));
  });

  it("guard: thrown, it is told by its message to the model, the journal, and tool-failed (its cause the error itself)", async () => {
    const e = await enoent();
    const { content, done } = await told(
      desk(async () => {
        await readFile(MISSING, "utf8");
      }),
    );
    expect(content).toBe(`Error: ${e.message}`);
    expect(done.error).toBe(e.message);
    const error = await desk(() => readFile(MISSING, "utf8"), "raise")("go", { lm: replies() }).catch((x: unknown) => x);
    expect(error).toMatchObject({ code: "tool-failed", message: `desk/load failed: ${e.message}` });
    expect((error as FunctaiError).cause).toMatchObject({ code: "ENOENT", path: MISSING });
  });
});

describe("hunt 159: a getter in a tool's output", () => {
  // Failed before the fix: the model was shown {"total":5} and the journal kept it so.
  it("a getter whose value is a function: refused, naming it", async () => {
    const output = {
      total: 5,
      get refresh() {
        return () => 5;
      },
    };
    const { content, done } = await told(desk(() => output));
    const why = "refresh is a getter that gives a function, which JSON leaves out";
    expect(content).toBe(`Error: its output is not JSON (${why}); return plain data`);
    expect(done.error).toContain(why);
  });

  it("deep, in an array, giving a symbol: refused, naming where", async () => {
    const row = Object.defineProperty({ id: "A" }, "tag", { get: () => Symbol("t"), enumerable: true });
    const { content } = await told(desk(() => ({ rows: [{ id: "Z" }, row] })));
    expect(content).toContain("(rows[1].tag is a getter that gives a symbol, which JSON leaves out)");
  });

  // Failed before the fix: the checks for `{}` and for a number written as null read the output again, getters too,
  // whenever its text held a `{}` or a `null`: a getter that throws the second time (a closed handle) had a good
  // output refused with that error ("its output is not JSON (the cursor is closed)").
  for (const [name, other, text] of [
    ["a null", null, "null"],
    ["an empty object", {}, "{}"],
  ] as const)
    it(`a getter that can be read once, beside ${name}: the output is kept as read`, async () => {
      let reads = 0;
      const output = {
        other,
        get rows() {
          if (++reads > 1) throw new Error("the cursor is closed");
          return [1, 2];
        },
      };
      const { content, done } = await told(desk(() => output));
      expect(content).toBe(`{"other":${text},"rows":[1,2]}`);
      expect(done.output).toEqual({ other, rows: [1, 2] });
      expect(reads).toBe(1);
    });

  // Failed before the fix: why the output was refused was asked by writing it again, and the getter's second reading
  // threw, so the model and the journal were told "the cursor is closed", not what was wrong with the output.
  it("an output refused, with a getter that can be read once: told why, from the one writing", async () => {
    let reads = 0;
    const output = {
      get rows() {
        if (++reads > 1) throw new Error("the cursor is closed");
        return [1, 2];
      },
      refresh: () => 1,
    };
    const { content, done } = await told(desk(() => output));
    const why = "its output is not JSON (refresh is a function, which JSON leaves out); return plain data";
    expect(content).toBe(`Error: ${why}`);
    expect(done.error).toBe(why);
    expect(reads).toBe(1);
  });

  it("guard: a getter giving NaN: refused, naming it", async () => {
    const output = {
      get balance() {
        return Number.NaN;
      },
    };
    const { content } = await told(desk(() => output));
    expect(content).toBe("Error: its output is not JSON (balance is NaN, which JSON writes as null); return plain data");
  });

  it("guard: a getter giving plain data is read once, and its value kept", async () => {
    let reads = 0;
    const output = {
      get total() {
        reads++;
        return reads === 1 ? 5 : 500; // a second reading would show another value
      },
    };
    const { content, done } = await told(desk(() => output));
    expect(content).toBe('{"total":5}');
    expect(done.output).toEqual({ total: 5 });
    expect(reads).toBe(1);
  });
});

/** A port on 127.0.0.1 that nothing listens on (one just listened on, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** What a real connect to `port` on a host of two addresses (127.0.0.1 and 127.0.0.2, tried each in turn) rejects with. */
function connectBoth(port: number): Promise<never> {
  return new Promise((_resolve, reject) => {
    const socket = connect({
      host: "two-addresses.test",
      port,
      autoSelectFamily: true,
      lookup: (_host, options, callback) => {
        const both = [
          { address: "127.0.0.1", family: 4 },
          { address: "127.0.0.2", family: 4 },
        ];
        // (asked for every address, as a connect that tries each in turn is)
        if ((options as { all?: boolean }).all) (callback as unknown as (e: null, all: typeof both) => void)(null, both);
        else callback(null, "127.0.0.1", 4);
      },
    });
    socket.on("error", reject);
  });
}

describe("hunt 159: a thrown error whose reason is in its cause", () => {
  // Failed before the fix: the model and the journal read "fetch failed", and no more.
  it("a fetch that cannot connect: told its cause's reason, also by tool-failed", async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/orders/A-1`;
    const thrown = await fetch(url).then(
      () => new Error("it connected"),
      (e: unknown) => e as Error,
    );
    const reason = (thrown.cause as Error).message;
    expect(thrown).toMatchObject({ message: "fetch failed", cause: { code: "ECONNREFUSED" } });
    expect(reason).toContain("ECONNREFUSED");
    const { content, done } = await told(desk(() => fetch(url)));
    expect(content).toBe(`Error: fetch failed (${reason})`);
    expect(done.error).toBe(`fetch failed (${reason})`);
    const error = await desk(() => fetch(url), "raise")("go", { lm: replies() }).catch((x: unknown) => x);
    expect(error).toMatchObject({ code: "tool-failed", message: `desk/load failed: fetch failed (${reason})` });
    expect((error as FunctaiError).cause).toBeInstanceOf(TypeError);
  });

  // Failed before the fix: the model and the journal read "AggregateError".
  it("an AggregateError with no message (a connect to each of a host's addresses): told its errors' messages", async () => {
    const port = await closedPort();
    const thrown = await connectBoth(port).catch((e: unknown) => e as AggregateError);
    expect(thrown).toBeInstanceOf(AggregateError);
    expect(thrown.message).toBe("");
    const said = thrown.errors.map((e: Error) => e.message);
    // (how each address failed is the system's: refused on Linux's loopback, maybe otherwise elsewhere)
    expect(said).toEqual([expect.stringContaining("127.0.0.1"), expect.stringContaining("127.0.0.2")]);
    const { content, done } = await told(desk(() => connectBoth(port)));
    expect(content).toBe(`Error: ${said.join("; ")}`);
    expect(done.error).toBe(said.join("; "));
  });

  it("guard: a wrapper whose message already says its cause's is told once", async () => {
    const e = await enoent();
    const { content } = await told(
      desk(() => {
        throw new Error(`could not load: ${e.message}`, { cause: e });
      }),
    );
    expect(content).toBe(`Error: could not load: ${e.message}`);
  });
});
