/**
 * A program's turn keeps its inputs as JSON, and a resumed body gets them
 * read back from that. Inputs its schema cannot read back (a `z.date()`,
 * whose JSON is a string) would reach a resumed body as a string where its
 * first run had a Date: such a send is refused (`input-invalid`) before
 * anything is written or paid. A plain call, an AI function's turn, and a
 * `z.coerce.date()` input are not refused.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, memoryStore, program } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const at = new Date("2026-12-01T09:30:00.000Z");

describe("a program's inputs in a conversation", () => {
  it("one its schema cannot read back from JSON is refused before anything is written; a plain call takes it", async () => {
    const ran: unknown[] = [];
    const remind = program("remind", { description: "Remind.", input: { when: z.date() }, output: z.string() }, ({ when }) => (ran.push(when), `at ${when.toISOString()}`));
    expect(await remind(at)).toBe("at 2026-12-01T09:30:00.000Z");
    const store = memoryStore();
    await expect(remind.conversation("c", { store }).send(at)).rejects.toMatchObject({ code: "input-invalid", message: expect.stringMatching(/when: .* once kept as JSON.*z\.coerce\.date\(\)/) });
    expect(() => remind.conversation("c", { store }).stream(at)).toThrow(expect.objectContaining({ code: "input-invalid" }));
    expect(await store.read("c")).toEqual([]);
    expect(ran).toHaveLength(1); // the plain call's
  });

  it("z.coerce.date() reads its JSON back: the turn runs, and its body gets a Date", async () => {
    const seen: unknown[] = [];
    const remind = program("remind", { description: "Remind.", input: { when: z.coerce.date() }, output: z.string() }, ({ when }) => (seen.push(when), "ok"));
    expect(await remind.conversation("c", { store: memoryStore() }).send(at)).toBe("ok");
    expect(seen[0]).toBeInstanceOf(Date);
  });

  it("an AI function's inputs are only laid out as JSON: a z.date() input is not refused", async () => {
    const when = ai("when", { description: "Say when.", input: { at: z.date() } });
    expect(await when.conversation("c", { store: memoryStore(), lm: scripted(["soon"]) }).send(at)).toBe("soon");
  });
});
