/**
 * Settings layers: plugins add up (src/settings.ts `mergeSettings`: "values
 * override, plugins add up"), so a guard plugin given to a call reaches every
 * tool call inside it, as the caller's `approve` does through a delegate
 * ("a delegate is no way around a rule or a function's no", delegate.ts).
 * In a conversation, `delegate` opens the delegated program's conversation
 * with the caller's settings minus every key the program sets itself
 * (src/functions/delegate.ts `runAsTool`: `!own.has(key)`): a program with a
 * plugin of its own (an audit log) drops the caller's plugins as a whole,
 * so a caller's guard that blocks refunds is not asked inside it, and the
 * refund runs. In a plain call the same guard blocks it (plugins add up).
 *
 * Now the caller's plugins add up with the program's there too.
 */
import { describe, expect, it } from "vitest";
import { memoryStore, type Plugin } from "../../src/index.js";
import { delegatedRefund } from "../engine/fixtures.js";

/** desk → delegate(billing, which has an audit plugin of its own) → refund (changes). */
function world() {
  const audited: string[] = [];
  const audit: Plugin = { name: "audit", version: "1", hooks: { modelResponse: () => void audited.push("reply") } };
  const { t, desk, lm } = delegatedRefund([audit]);
  const guard: Plugin = {
    name: "guard",
    version: "1",
    hooks: { toolCall: (c) => (c.name === "refund" ? { block: "refunds are off today" } : undefined) },
  };
  return { t, desk, lm, guard, audited };
}

describe("a caller's guard plugin and a delegated program with a plugin of its own", () => {
  it("a plain call: the guard blocks the refund inside (plugins add up)", async () => {
    const { t, desk, lm, guard } = world();
    expect(await desk("Refund A-1042.", { lm, plugins: [guard] })).toBe("saw: saw: The call was blocked (guard). Reason: refunds are off today");
    expect(t.REFUNDS).toEqual([]);
  });

  it("a conversation: the guard blocks the refund inside too, not dropped for the program's own plugin", async () => {
    const { t, desk, lm, guard, audited } = world();
    const chat = desk.conversation("sam", { store: memoryStore(), lm, plugins: [guard] });
    const answer = await chat.send("Refund A-1042.");
    expect(t.REFUNDS).toEqual([]); // it ran: [["A-1042", 39]]
    expect(answer).toBe("saw: saw: The call was blocked (guard). Reason: refunds are off today");
    expect(audited).toEqual(["reply", "reply"]); // the program's own plugin still runs: it saw both of its model's replies
  });
});
