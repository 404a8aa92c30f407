/**
 * Hunt 72: evaluate's refusal of a `store` it cannot use echoed the whole
 * value: a connection string with its password ("redis://app:…@db") went
 * into an error message that hosts log, and a Store-like object was dumped.
 * The other entry points (configure, conversation, serve) word it through
 * `storeOptionProblem`, which names the scheme only; evaluate does the same.
 */
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/index.js";
import { rows, status, teacher } from "./desk.js";

describe("evaluate refuses a store it cannot use without echoing it", () => {
  it("a URL of a store functai has not: input-invalid naming the scheme, never the password; nothing sent", async () => {
    const lm = teacher();
    const secret = "redis://app:hunter2-s3cret@db.internal:6379/0";
    const error = await evaluate(status.using({ lm }), rows.slice(0, 1), { store: secret }).then(
      () => null,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(error).toMatchObject({ code: "input-invalid", message: expect.stringContaining('store "redis:…" names no store') });
    expect(error!.message).not.toContain("hunter2");
    expect(lm.requests).toHaveLength(0);
  });

  it("a location with white space at an end, or memory: the shared wording (what to do instead)", async () => {
    const lm = teacher();
    await expect(evaluate(status.using({ lm }), rows.slice(0, 1), { store: " postgres://u:pw-xyz@h/db" })).rejects.toMatchObject({
      code: "input-invalid",
      message: expect.not.stringContaining("pw-xyz"),
    });
    await expect(evaluate(status.using({ lm }), rows.slice(0, 1), { store: "memory" })).rejects.toMatchObject({
      code: "input-invalid",
      message: expect.stringContaining("memoryStore()"),
    });
    expect(lm.requests).toHaveLength(0);
  });
});
