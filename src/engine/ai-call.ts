import type { z } from "zod";
import { FunctaiError, OutputError, StepLimit, describeError, isInstance } from "../errors.js";
import { remember, type HistoryEntry, type ReplyMark } from "../history.js";
import { checkResponse, modelFailure } from "../lm/check-response.js";
import { requestFingerprint } from "../lm/fingerprint.js";
import { baseMessages, readOutput, unreadableReplyMessage } from "../lm/prompt.js";
import { replyText } from "../lm/reply-text.js";
import { fromTextResponse, toTextRequest } from "../lm/text-tools.js";
import type { FinishReason, LanguageModel, LMRequest, LMResponse, Message } from "../lm/types.js";
import { observeModelCall } from "../plugins/hooks.js";
import { resolveLM } from "../providers/resolve.js";
import { DEFAULT_MAX_STEPS, type Settings } from "../settings.js";
import { toolSpec } from "../tools/tool.js";
import type { ToolLike } from "../tools/types.js";
import type { Frame } from "./frame.js";
import { macrotask } from "./macrotask.js";
import { Suspend } from "./runtime.js";
import { StopBound } from "./stop-bound.js";
import { runToolCalls } from "./tool-calls.js";

/** What the loop needs of an AI function. */
export interface AIShape {
  name: string;
  description: string;
  output: z.ZodType;
  tools: readonly ToolLike[];
  toolMap: ReadonlyMap<string, ToolLike>;
}

export interface EarlierTurn {
  inputs: Record<string, unknown>;
  value: unknown;
}

export function lmOf(frame: Frame): LanguageModel {
  return lmFor(frame.path, frame.settings);
}

/**
 * Refuses, before a turn is written or claimed, one this process cannot run:
 * an AI function with no language model in these settings (`lm-missing`,
 * `lm-unknown`). Found only as the turn ran, it failed the turn for good; a
 * person's yes given from a handle opened with only a store was spent with it.
 * (A program's calls find their models as they run.)
 */
export function checkModel(def: { readonly kind: string; readonly name: string }, settings: Settings): void {
  if (def.kind === "ai") lmFor(def.name, settings);
}

/**
 * The language model a call at `path` runs with these settings: `lm-missing`
 * when none is given, `lm-unknown` when what is given is not one. Asked
 * before a turn is written or claimed, too (see `checkModel`).
 */
export function lmFor(path: string, settings: Settings): LanguageModel {
  const lm = settings.lm;
  if (lm === undefined)
    throw new FunctaiError(
      "lm-missing",
      `${path}: no language model. configure({ lm: "gpt-4.1-mini" }), or give lm in the call's options or settings.`,
    );
  return resolveLM(lm);
}

/** A request whose messages a model cannot change (each frozen; the list is the request's own, see requestOf). */
function frozen(request: LMRequest): LMRequest {
  for (const m of request.messages) Object.freeze(m);
  return request;
}

/** Asks the model (a reply no earlier run recorded), durable before paying. */
async function ask(frame: Frame, lm: LanguageModel, request: LMRequest, key: string, step: number): Promise<LMResponse> {
  const runtime = frame.runtime;
  // a streamed turn lets its consumer read what was emitted before paying for a reply: a consumer that
  // stops at an event (break) stops the turn before its next model call, however many hops its reading takes
  if (runtime.streaming) await macrotask();
  const checked = runtime.beforeEffect();
  if (checked) await checked; // (a lease renewal; no promise made when there is nothing to wait for)
  const { site, path } = frame;
  runtime.emit(path, { type: "request", site, step });
  // text events carry the answer's text only, never the reply form's tags (see lm/reply-text.ts); what it held
  // back was shown to nobody, so a provider may still retry a stream that failed before any text event (heldText)
  const text = runtime.streaming
    ? replyText((delta) => runtime.emit(path, { type: "text", site, delta }), { textTools: !lm.nativeTools })
    : undefined;
  // plugins are shown the reply as it is read here: checked (one refused is the call's error), its text tool calls read
  const read = (reply: unknown): LMResponse => {
    const checked = checkResponse(lm, reply);
    return lm.nativeTools ? checked : fromTextResponse(checked);
  };
  // the reply is queued in the journal the moment it is read: queued after the hooks (which may await), a concurrent
  // call's request checked meanwhile was sent without it, and a crash during that request paid for it again
  const paid = async (): Promise<LMResponse> => {
    // a model that ignores its signal does not hold a stop for good (see StopBound): the stop settles after the grace,
    // and its reply, if it comes later, is neither read nor written (the journal never gains a record after the end)
    const generated = new StopBound().race(
      lm.generate(lm.nativeTools ? request : frozen(toTextRequest(request)), { signal: runtime.signal, onText: text?.push, heldText: text }),
      runtime.signal,
    );
    const reply = read(await generated);
    void runtime.journal.add({ kind: "reply", key, site, step, response: reply });
    return reply;
  };
  let response: LMResponse;
  try {
    // durable before paying: every reply that arrived before this request is kept before it is sent
    response = await observeModelCall(frame, lm, step, request, () => runtime.journal.paying(paid, () => runtime.beforeEffect(true)));
  } catch (e) {
    throw runtime.signal.aborted ? e : modelFailure(lm, e); // (a stopped turn keeps its own reason)
  }
  text?.end();
  if (runtime.streaming) {
    const toolCalls = response.toolCalls.map(({ id, name, input }) => ({ id, name, input }));
    runtime.emit(path, { type: "reply", site, step, text: response.text, toolCalls, finishReason: response.finishReason, usage: response.usage });
  }
  return response;
}

/**
 * The request of the next step: the history so far, as a real Array of its own (so a model that hands its request
 * to a Worker, `postMessage`, or keeps it, `structuredClone`, can; a Proxy view could not be cloned), of the
 * history's messages, each frozen as it joined it (so an edit in place changes neither the history the next steps
 * are built on nor another request: what a model wants to edit it copies). A model that adds to its list or puts a
 * message in place of another (a system prompt of its own) changes only its request.
 *
 * The list is made when `messages` is first read (then it is a plain property, as if it had been one from the start;
 * JSON, spreading and structuredClone read it too): a request nobody reads the messages of (a model that answers
 * from a script, as the benchmarks' and tests' do, keeping every request) costs O(1), not O(history), so a step's
 * cost does not grow with the steps before it; a provider reads them all to send them anyway.
 */
function requestOf(messages: readonly Message[], tools: LMRequest["tools"], settings: Settings): LMRequest {
  const length = messages.length;
  const request = {} as LMRequest;
  const own = (value: unknown): void =>
    void Object.defineProperty(request, "messages", { value, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(request, "messages", {
    get() {
      const list = messages.slice(0, length);
      own(list);
      return list;
    },
    set: own,
    enumerable: true,
    configurable: true,
  });
  request.tools = tools;
  if (settings.temperature !== undefined) request.temperature = settings.temperature;
  if (settings.maxTokens !== undefined) request.maxTokens = settings.maxTokens;
  return request;
}

/**
 * The inputs as the journal keeps them (JSON): a left-out optional input
 * (`undefined`) is not there, a Date a zod transform made is its string, and
 * so on. A resumed turn reads its inputs back from the journal: laid out
 * from anything else, its requests would not match the replies recorded for
 * them, which would be paid for again. Strings (most inputs) are kept as they are.
 */
function asKept(inputs: Record<string, unknown>): Record<string, unknown> {
  let kept: Record<string, unknown> | undefined;
  for (const key in inputs) {
    const value = inputs[key];
    if (typeof value === "string") continue;
    kept ??= { ...inputs };
    const text = JSON.stringify(value); // (checked when the call began: it can be written)
    if (text === undefined) delete kept[key];
    else kept[key] = JSON.parse(text) as unknown;
  }
  return kept ?? inputs;
}

/**
 * The tool loop: ask the model, run the tools it asks for, until it answers
 * (at most `maxSteps` model calls). An unreadable answer is asked for again
 * once, then refused.
 */
export async function runAICall(frame: Frame, fn: AIShape, inputs: Record<string, unknown>, history: readonly EarlierTurn[] = []): Promise<unknown> {
  const lm = lmOf(frame);
  const { settings, runtime } = frame;
  const specs = fn.tools.map(toolSpec);
  const messages: Message[] = baseMessages(fn.name, fn.description, fn.output, asKept(inputs), history);
  // each message frozen as it joins the history: requests share them (see requestOf), and none is changed after
  for (const message of messages) Object.freeze(message);
  // extended by each message as it is added: step n hashes only what step n added (see requestKey)
  const fingerprint = requestFingerprint({
    site: frame.site,
    provider: lm.provider,
    model: lm.model,
    temperature: settings.temperature,
    maxTokens: settings.maxTokens,
    tools: specs,
  });
  for (const message of messages) fingerprint.add(message);
  const usage = { inputTokens: 0, outputTokens: 0 };
  const push = (message: Message): void => {
    messages.push(Object.freeze(message));
    fingerprint.add(message);
  };
  const maxSteps = settings.maxSteps ?? DEFAULT_MAX_STEPS;
  let askedAgain = false;
  // the last reply read, for phistory() when the call fails: the history a user prints to debug it shows it
  let last: LMResponse | undefined;
  // whether this run asked the model: a call that answered from replies an earlier run recorded, all of them (a
  // resumed turn replaying a call that answered before the turn waited or was interrupted), was shown when it was
  // paid, in that run; listed again, its tokens would read as paid twice. (A failure is always shown: one found in
  // a replay, such as an approved tool's error, may be new, and this run is the one that met it.)
  let paidHere = false;
  // each reply read, named within the turn by its request's key: phistory() counts a replayed one an earlier entry
  // already counted only once (an interrupted call resumed in this process)
  const replies: ReplyMark[] = [];
  const remembered = (e: HistoryEntry): void => {
    if (paidHere) remember(e, replies);
  };
  /** The call as `phistory()` shows it, its reply `response` (ended for `finishReason`). */
  const entry = (response: string, finishReason: FinishReason): HistoryEntry => ({
    at: new Date(runtime.clock.now()),
    name: fn.name,
    model: lm.model,
    messages,
    tools: fn.tools.map((t) => t.name),
    response,
    finishReason,
    usage,
  });
  try {
    for (let step = 1; step <= maxSteps; step++) {
      const key = fingerprint.key();
      // a reply an earlier run recorded (each is used once) is taken without a promise: a replayed step runs through
      const recorded = runtime.journal.takeReply(key);
      // made to be sent, or kept for `predict`: a replayed step whose request nobody keeps makes none
      const request = recorded === undefined || runtime.keepsStepsOf(frame) ? requestOf(messages, specs, settings) : undefined;
      if (recorded === undefined) paidHere = true;
      const response = recorded ?? (await ask(frame, lm, request!, key, step));
      last = response;
      replies.push({ id: `${runtime.turn}\n${key}`, usage: response.usage, replayed: recorded !== undefined });
      runtime.addStep(frame, request, response, recorded !== undefined);
      usage.inputTokens += response.usage.inputTokens;
      usage.outputTokens += response.usage.outputTokens;
      if (response.toolCalls.length === 0) {
        // an empty reply cut off by its token limit (a reasoning model that spent it thinking) says to raise maxTokens
        const empty = response.text.trim() === "" && response.finishReason !== "length";
        const read = empty ? { ok: false as const, detail: "the reply is empty" } : readOutput(response.text, fn.output, response.finishReason);
        if (read.ok) {
          remembered(entry(response.text, response.finishReason));
          return read.value;
        }
        // the output schema's own fault (a refinement's bug, an async one): asking the model again would not mend it
        if ("thrown" in read)
          throw new FunctaiError("output-invalid", `${fn.name}: its output schema threw while checking the reply: ${read.detail}`, {
            cause: read.thrown,
          });
        if (askedAgain) throw new OutputError(fn.name, response.text, read.detail);
        // the last step the limit allows: no step is left to ask again, and what went wrong is the reply, not the limit
        if (step === maxSteps) throw new OutputError(fn.name, response.text, `${read.detail}; maxSteps (${maxSteps}) left no step to ask again`);
        askedAgain = true;
        push({ role: "assistant", content: response.text });
        push({ role: "user", content: unreadableReplyMessage(read.detail) });
        continue;
      }
      push({ role: "assistant", content: response.text, toolCalls: response.toolCalls });
      // the step's results were sent (and its calls that never ran told) by an earlier run only when its next reply
      // is kept: one that died before that may have died before it told them (see firstSettles)
      const unsent = recorded === undefined || !runtime.journal.repliedAt(frame.site, step + 1);
      const results = runToolCalls(frame, response.toolCalls, fn.toolMap, recorded === undefined, unsent);
      for (const result of results instanceof Promise ? await results : results) push(result);
    }
    throw new StepLimit(fn.name, maxSteps);
  } catch (e) {
    // a call that waits for a person has not failed (it goes on once answered); any other ending is shown by phistory()
    // with its code and message, never its cause (a provider's raw error may carry what its message leaves out)
    if (!isInstance(e, Suspend))
      remember(
        {
          ...entry(last?.text ?? "", last?.finishReason ?? "other"),
          error: { code: isInstance(e, FunctaiError) ? (e as FunctaiError).code : null, message: describeError(e), replied: last !== undefined },
        },
        replies,
      );
    throw e;
  }
}
