/**
 * A reply is kept while its step's own code runs (real SIGKILL): a process
 * that waits in a slow reading tool, an `approve` function or a plugin's
 * `toolCall` hook (someone asked on Slack, a slow lookup) keeps the reply it
 * paid for meanwhile, so a process that dies there leaves nothing to pay for
 * again. Before, the reply waited in memory for the next request or a
 * changing tool's `started`, and a resume paid for it a second time.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fsStore } from "../../adapters/node-fs/index.js";
import { KEEP_REPLY_WITHIN_MS } from "../../src/engine/journal.js";
import { start } from "./fixtures/hunt2-children.js";
import { ANSWER, keptReplyDesk, SLOWS } from "./fixtures/kept-reply.js";
import { removeBundles } from "./fixtures/spawn.js";

afterAll(removeBundles);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe("a reply is kept while its step's own code runs (real SIGKILL there)", () => {
  for (const slow of SLOWS)
    it(`killed in a ${slow} that waits: the resume pays only for the next step, never again for the reply that had come back`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "functai-kept-reply-"));
      const child = await start("kept-reply-child.ts", { dir, slow });
      try {
        await child.line("waiting");
        await sleep(KEEP_REPLY_WITHIN_MS * 4); // well past the bound: the reply is on disk by now
        child.kill();
        expect(await child.exited).toBe("SIGKILL");
      } finally {
        child.kill();
      }
      const paidByChild = child.lines.filter((l) => "sent" in l).map((l) => l.sent);
      expect(paidByChild).toHaveLength(1);

      const asked: string[] = [];
      const { desk, approve, plugins, model } = keptReplyDesk(slow, async () => {});
      const chat = desk.conversation("orders", {
        store: fsStore(dir, { lockStaleMs: 200 }),
        lm: model((fp) => void asked.push(fp)),
        approve,
        plugins,
      });
      const [turn] = await chat.turns();
      expect(turn!.state).toBe("interrupted"); // its process is gone, and no changing tool had started
      expect(await turn!.resume()).toBe(ANSWER);
      expect(asked).toHaveLength(1); // the answer's request only
      expect(asked).not.toContain(paidByChild[0]);
    });
});
