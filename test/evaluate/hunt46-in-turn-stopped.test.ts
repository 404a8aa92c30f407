/**
 * Hunt 46: `evaluate` in a program's body given no signal, its turn stopped meanwhile (the outer call's signal). Each
 * row's call then failed `turn-aborted` as if the function had: the run went on starting rows (each failing at once),
 * resolved with every row 0, and the program's body went on with that evaluation as its result. A stop of the turn
 * stops the run with it now: evaluate rejects with the turn's `turn-aborted` once its running rows end, and no later
 * row starts.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { beforeGenerate } from "../fixtures/before-generate.js";
import { ai, evaluate, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const echo = ai("echo", { description: "Say ok.", input: { q: z.string() } });
const rows = Array.from({ length: 6 }, (_, i) => ({ q: `q${i}`, result: "ok" }));

describe("evaluate in a turn that is stopped, given no signal of its own", () => {
  it("rejects with the turn's stop; the body does not go on with a run of zeros", async () => {
    const inner = scripted(Array.from({ length: 20 }, () => "<result>\nok\n</result>"));
    const controller = new AbortController();
    let asked = 0;
    const lm = beforeGenerate(inner, (_request, options) => {
      asked += 1;
      // the second row's request: the turn is stopped while it is on the wire
      if (asked === 2) {
        controller.abort(new Error("closing time"));
        if (options?.signal?.aborted) throw options.signal.reason;
      }
    });
    let wentOn = false;
    const nightly = program("nightly", { description: "Measures echo.", input: { n: z.number() }, output: z.number().nullable() }, async () => {
      const ev = await evaluate(echo.using({ lm }), rows, { concurrency: 1 });
      wentOn = true;
      return ev.score;
    });
    const e = await nightly({ n: 1 }, { signal: controller.signal }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "turn-aborted" });
    expect(wentOn).toBe(false);
    expect(asked).toBe(2); // no row started after the stop
  });
});
