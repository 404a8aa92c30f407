import { FunctaiError } from "../errors.js";
import { LM_SPEC, type LanguageModel, type LMRequest, type LMResponse, type Usage } from "../lm/types.js";

/** A scripted reply: the model's text, or tool calls (and text), or a function of the request returning one. */
export type ScriptedReply =
  | string
  | { text?: string; toolCalls?: { name: string; input: unknown; id?: string }[]; usage?: Partial<Usage> }
  | ((request: LMRequest, index: number) => string | { text?: string; toolCalls?: { name: string; input: unknown; id?: string }[]; usage?: Partial<Usage> });

export interface ScriptedLM extends LanguageModel {
  /** Every request it was sent, in order (to check nothing was paid for twice). */
  readonly requests: LMRequest[];
  /** Replies not used yet. */
  readonly remaining: number;
}

const DEFAULT_USAGE: Usage = { inputTokens: 10, outputTokens: 5 };

/**
 * A model that answers from a list, in order. With `nativeTools: false` the
 * tools are offered as text and its tool calls are written as text blocks,
 * read back as a real model's would be.
 *
 * @example
 * const lm = scripted([{ toolCalls: [{ name: "lookup_order", input: { order_id: "A-1042" } }] }, "It is stuck at the carrier."]);
 * await answer("Where is A-1042?", { lm });
 * lm.requests.length; // 2
 */
export function scripted(replies: readonly ScriptedReply[], options: { nativeTools?: boolean; model?: string } = {}): ScriptedLM {
  const nativeTools = options.nativeTools ?? true;
  const requests: LMRequest[] = [];
  let next = 0;
  const lm: ScriptedLM = {
    specificationVersion: LM_SPEC,
    provider: "scripted",
    model: options.model ?? "scripted",
    nativeTools,
    requests,
    get remaining() {
      return replies.length - next;
    },
    async generate(request, generateOptions): Promise<LMResponse> {
      if (generateOptions?.signal?.aborted) throw generateOptions.signal.reason;
      requests.push(request);
      const index = next++;
      let reply = replies[index];
      if (reply === undefined)
        throw new FunctaiError("provider-bad-request", `scripted model: no reply left (it was asked ${index + 1} times, has ${replies.length} replies)`);
      if (typeof reply === "function") reply = reply(request, index);
      if (typeof reply !== "string" && (typeof reply !== "object" || reply === null || Array.isArray(reply)))
        throw new FunctaiError("provider-response", `scripted model: reply ${index + 1} is ${reply === null ? "null" : Array.isArray(reply) ? "an array" : typeof reply}, not a string or { text?, toolCalls? }`);
      const r = typeof reply === "string" ? { text: reply } : reply;
      // a real model's null text or tool calls is a broken reply, not an empty one: the same here
      if ((r.text !== undefined && typeof r.text !== "string") || (r.toolCalls !== undefined && !Array.isArray(r.toolCalls)))
        throw new FunctaiError("provider-response", `scripted model: reply ${index + 1} has text ${r.text === null ? "null" : typeof r.text} and toolCalls ${r.toolCalls === null ? "null" : typeof r.toolCalls}; give a string and an array (or leave them out)`);
      const calls = (r.toolCalls ?? []).map((c, i) => ({ id: c.id ?? `call_${index + 1}_${i + 1}`, name: c.name, input: c.input }));
      const usage = { ...DEFAULT_USAGE, ...r.usage };
      let text = r.text ?? "";
      if (text && generateOptions?.onText) for (const word of text.split(/(?<= )/)) generateOptions.onText(word);
      if (!nativeTools && calls.length > 0) {
        const blocks = calls.map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, input: c.input })}\n</tool_call>`);
        text = [text, ...blocks].filter((s) => s !== "").join("\n");
        return { text, toolCalls: [], finishReason: "stop", usage, model: lm.model };
      }
      return { text, toolCalls: calls, finishReason: calls.length > 0 ? "tool_calls" : "stop", usage, model: lm.model };
    },
  };
  return lm;
}
