/**
 * `phistory(n)`: the last n AI function calls. n is a count: 0 prints
 * nothing, and a value that is no count is refused (input-invalid), never
 * read as "all of them" or "all but the first few".
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, clearHistory, isFunctaiError, phistory } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const echo = ai("echo", { description: "Say it back.", input: { text: z.string() }, output: z.string() });

async function calls(n: number): Promise<void> {
  clearHistory();
  for (let i = 1; i <= n; i++) await echo(`call ${i}`, { lm: scripted([`<result>\nreply ${i}\n</result>`]) });
}

const blocks = (text: string): number => (text.match(/\] echo → /g) ?? []).length;

afterEach(clearHistory);

describe("phistory(n)", () => {
  it("prints the last n calls; 0 prints nothing; Infinity or more than there are prints all", async () => {
    await calls(3);
    expect(blocks(phistory())).toBe(1);
    expect(phistory()).toContain("reply 3");
    expect(blocks(phistory(2))).toBe(2);
    expect(phistory(2)).not.toContain("reply 1");
    expect(phistory(0)).toBe("");
    expect(blocks(phistory(10))).toBe(3);
    expect(blocks(phistory(Number.POSITIVE_INFINITY))).toBe(3);
  });

  it.each([[-1], [-2], [1.5], [Number.NaN], ["2"]])("refuses n = %s (input-invalid)", async (n) => {
    await calls(3);
    let error: unknown;
    try {
      phistory(n as never);
    } catch (e) {
      error = e;
    }
    expect(isFunctaiError(error, "input-invalid"), String(error)).toBe(true);
  });
});
