/**
 * A request's messages are a real Array of its own, of frozen messages (the lead's decision, hunt 62): a model can
 * clone it, add to it (its own copy), and cannot change the history the next steps are built on. Under the Proxy view, a model that edited a
 * message in place (trimming its content, as some adapters do) changed that message in every later request, which
 * then differed from what the journal's fingerprints say was sent.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ai, tool, type LMRequest } from "../../src/index.js";
import { scripted } from "../../src/testing/index.js";

const lookup = tool("lookup", { description: "Look it up.", input: { id: z.string() }, effects: "reads" }, ({ id }) => ({ id }));
const fn = ai("answer", { description: "Answer.", input: { question: z.string() }, tools: [lookup] });

describe("a request's messages", () => {
  for (const nativeTools of [true, false])
    it(`are the request's own list of frozen messages, and a model's edit changes no later request (nativeTools ${nativeTools})`, async () => {
      const frozen: boolean[] = [];
      const edit = (request: LMRequest) => {
        frozen.push(!Object.isFrozen(request.messages) && request.messages.every((m) => Object.isFrozen(m)) && Array.isArray(request.messages));
        try {
          (request.messages[1] as { content: string }).content = "edited by the model";
        } catch {
          // (frozen: the model's own copy is what it may change)
        }
      };
      const lm = scripted(
        [
          (request: LMRequest) => {
            edit(request);
            return { toolCalls: [{ name: "lookup", input: { id: "x" } }] };
          },
          (request: LMRequest) => {
            edit(request);
            return "done";
          },
        ],
        { nativeTools },
      );
      expect(await fn("What is x?", { lm })).toBe("done");
      expect(frozen).toEqual([true, true]);
      expect(lm.requests[1]!.messages[1]!.content).toContain("What is x?");
      expect(lm.requests[1]!.messages.some((m) => m.content.includes("edited by the model"))).toBe(false);
    });
});
