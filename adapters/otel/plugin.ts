import { context, isSpanContextValid, SpanKind, trace, type Attributes, type Context, type Link, type Span, type Tracer } from "@opentelemetry/api";
import type { Approval } from "../../src/approval/types.js";
import { frameCarrier } from "../../src/engine/carrier.js";
import { describeValue, FunctaiError } from "../../src/errors.js";
import type { Plugin, PluginModelRequest, PluginToolResult, PluginTurn, PluginTurnEnd } from "../../src/plugins/types.js";
import { namedKeys, unknownKeys } from "../../src/runtime/values.js";
import { boundedText, FUNCTAI, GEN_AI, jsonText } from "./attributes.js";
import { inputMessages, outputMessages } from "./messages.js";
import { endQuietly, quietly } from "./quiet.js";
import { type CallerAt, failSpan, LOOSE_LIMIT, Run } from "./run.js";

/**
 * How the OpenTelemetry plugin traces: the tracer to use, and whether
 * spans carry message contents (off by default).
 *
 * @example
 * const options: OtelOptions = { tracer: trace.getTracer("desk"), content: false };
 * configure({ plugins: [otel(options)] });
 */
export interface OtelOptions {
  /** Default: `trace.getTracer("functai")` (the globally registered provider's). */
  tracer?: Tracer;
  /**
   * Record message contents (prompts, replies, tool inputs and outputs, error texts). Default `false`. Each is
   * bounded at 100,000 characters (its long strings cut, each saying how long it was; JSON stays JSON).
   */
  content?: boolean;
}

const OPTION_KEYS = ["tracer", "content"];

/**
 * Options of the wrong type, refused when the plugin is made (settings-invalid):
 * a `content` of `"false"` (truthy) would record every prompt, a misspelt
 * key would be ignored, and a tracer that cannot start spans would leave
 * every span quietly missing.
 */
function checkOptions(options: unknown): asserts options is OtelOptions {
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new FunctaiError("settings-invalid", `otel options must be an object { tracer?, content? }, not ${describeValue(options, 80)}`);
  const odd = unknownKeys(Object.keys(options), OPTION_KEYS);
  if (odd.length > 0)
    throw new FunctaiError(
      "settings-invalid",
      `otel: ${namedKeys(odd, "is not an option", "are not options")}; its options are ${OPTION_KEYS.join(", ")}`,
    );
  const { tracer, content } = options as Record<string, unknown>;
  if (content !== undefined && typeof content !== "boolean")
    throw new FunctaiError("settings-invalid", `otel content must be true or false, not ${describeValue(content, 80)}`);
  if (tracer !== undefined && (typeof tracer !== "object" || tracer === null || typeof (tracer as Partial<Tracer>).startSpan !== "function"))
    throw new FunctaiError("settings-invalid", `otel tracer must be an OpenTelemetry Tracer (with startSpan), not ${describeValue(tracer, 80)}`);
}

/** What the plugin keeps in a turn's records: the span context of each run, so the next run links to it. */
interface KeptContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

const linksFrom = (kept: readonly unknown[]): Link[] =>
  kept.flatMap((k) => {
    const c = k as Partial<KeptContext> | null;
    if (!c || typeof c.traceId !== "string" || typeof c.spanId !== "string") return [];
    const spanContext = { traceId: c.traceId, spanId: c.spanId, traceFlags: typeof c.traceFlags === "number" ? c.traceFlags : 0, isRemote: true };
    return isSpanContextValid(spanContext) ? [{ context: spanContext, attributes: { [FUNCTAI.state]: "earlier run" } }] : [];
  });

/**
 * What a tool call's span says of the answers that decided it: `functai.approval` (`approved`, `refused`, `blocked`
 * by a plugin's `toolCall`, or `not-asked`) and who gave it (for a block, the plugin); a call left in doubt that a
 * person answered, `functai.answered` (`given`: the output is what they said, the tool did not run; `rerun`) and who
 * answered, when the records say.
 */
function toldAnswers(span: Span, result: PluginToolResult, content: boolean): void {
  const { approved, refused, answered, unrun } = result;
  const blocked = unrun?.code === "tool-blocked" ? unrun : undefined;
  span.setAttribute(FUNCTAI.approval, approved ? "approved" : refused ? "refused" : blocked ? "blocked" : "not-asked");
  const by = approved?.by ?? refused?.by ?? blocked?.by;
  if (by) span.setAttribute(FUNCTAI.approvedBy, boundedText(by));
  const reason = refused?.reason ?? blocked?.reason;
  if (reason && content) span.setAttribute(FUNCTAI.refusalReason, boundedText(reason));
  if (!answered) return;
  span.setAttribute(FUNCTAI.answered, answered.kind);
  if (answered.by) span.setAttribute(FUNCTAI.answeredBy, boundedText(answered.by));
}

function turnAttributes(t: PluginTurn, content: boolean): Attributes {
  const attributes: Attributes = {
    [GEN_AI.operation]: "invoke_agent",
    [GEN_AI.agentName]: t.name,
    [FUNCTAI.turn]: t.turn,
    [FUNCTAI.attempt]: t.attempt,
    [FUNCTAI.resumed]: t.resumed,
    [FUNCTAI.mode]: t.mode,
  };
  if (t.conversation !== undefined) attributes[GEN_AI.conversationId] = t.conversation;
  if (content) attributes[FUNCTAI.input] = jsonText(t.input);
  return attributes;
}

/**
 * What a run that ended waits for: its approvals, or, for a run stopped (not
 * ended) because a delegated turn of it waits for a person, that turn's: a
 * wait, not a failure.
 */
const waitsOf = (end: PluginTurnEnd, run: Run): readonly Approval[] | undefined =>
  end.state === "waiting" ? end.approvals : end.state === "interrupted" && run.waits.length > 0 ? run.waits : undefined;

/**
 * What a run's span ends with (the caller ends it, even when this throws).
 * Its usage is that of the model calls this run made (its chat spans'):
 * `end.usage` also counts the replies it replayed from the journal, which an
 * earlier run paid for and its span already counts.
 */
function endTurnSpan(span: Span, end: PluginTurnEnd, run: Run, content: boolean): void {
  const { usage } = run;
  span.setAttributes({ [FUNCTAI.state]: end.state, [GEN_AI.inputTokens]: usage.inputTokens, [GEN_AI.outputTokens]: usage.outputTokens });
  const waits = waitsOf(end, run);
  if (waits) {
    span.addEvent(FUNCTAI.waitEvent, {
      [FUNCTAI.approvals]: waits.map((a) => a.path),
      [FUNCTAI.approvalIds]: waits.map((a) => a.id),
    });
  } else if (end.state === "interrupted" && end.code === "turn-unfinished") {
    // stopped for a person, who says what its calls left in doubt did (resumable, as a wait): no failure, as their spans are none
    span.addEvent(FUNCTAI.waitEvent, { [FUNCTAI.unfinishedCalls]: run.unfinished, [FUNCTAI.unfinishedIds]: run.unfinishedIds });
  } else if (end.state !== "done" && end.state !== "waiting") {
    // (the stable code of why it did not end done; a failure whose error has none: "error"; hooks called by hand may give no code: the state)
    failSpan(span, end.code ?? (end.state === "failed" ? "error" : end.state), end.error, content);
  }
}

/** A name as an attribute takes it: text, not empty. */
const isText = (value: unknown): value is string => typeof value === "string" && value !== "";

/** A model call's span name, as the conventions have it: `chat <model>`, or `chat` when the model has no name. */
const chatName = (model: unknown): string => (isText(model) ? `chat ${model}` : "chat");

/** The provider and model a model call names (a model is checked by its specificationVersion alone: one made in JavaScript may name neither, or give an object). */
function modelAttributes(r: PluginModelRequest): Attributes {
  const attributes: Attributes = {};
  if (isText(r.provider)) attributes[GEN_AI.provider] = r.provider;
  if (isText(r.model)) attributes[GEN_AI.requestModel] = r.model;
  return attributes;
}

function requestAttributes(r: PluginModelRequest, content: boolean): Attributes {
  const attributes: Attributes = { [GEN_AI.operation]: "chat", [FUNCTAI.site]: r.site, [FUNCTAI.step]: r.step, ...modelAttributes(r) };
  if (r.request.temperature !== undefined) attributes[GEN_AI.temperature] = r.request.temperature;
  if (r.request.maxTokens !== undefined) attributes[GEN_AI.maxTokens] = r.request.maxTokens;
  if (content) attributes[GEN_AI.inputMessages] = jsonText(inputMessages(r.request.messages));
  return attributes;
}

/**
 * A plugin that makes OpenTelemetry spans with the GenAI semantic
 * conventions: `invoke_agent <name>` for each run of a turn, `chat <model>`
 * for each model call, `execute_tool <name>` for each tool call (one that never
 * reached its tool, blocked by a plugin or not runnable, too: no child spans). A turn
 * that waits for a person ends its span with a `functai.wait` event; its
 * span context is kept in the turn's records, so the run that goes on (in
 * this process or another) links to it. A turn started inside a tool call
 * (a delegated program's) is a child of that call's span. Message contents
 * are recorded only with `content: true`. A tracer that throws never fails
 * a turn (see {@link quietly}).
 *
 * @example
 * import { configure } from "functai";
 * import { otel } from "functai/otel";
 *
 * configure({ plugins: [otel()] });                       // the global tracer provider's "functai" tracer
 * configure({ plugins: [otel({ tracer, content: true })] }); // a tracer of your own, with prompts and replies
 */
export function otel(options: OtelOptions = {}): Plugin {
  checkOptions(options);
  const tracer = options.tracer ?? trace.getTracer("functai");
  const content = options.content ?? false;
  /**
   * The runs of each turn going on in this process, oldest first. Mostly one;
   * two when a run that lost its lease has not stopped yet and another handle
   * claimed the turn and goes on with it (each run's span ends with its own end).
   */
  const runs = new Map<string, { attempt: number; run: Run }[]>();
  /** The turn spans already naming their provider and model (their function's first model call in this run). */
  const named = new WeakSet<Span>();
  /**
   * Spans of turns whose start this plugin did not see (it was given below
   * the turn's outermost call): a spare run for each run of such a turn, kept
   * by the run's runtime (found from the frame its hooks are called in), its
   * spans under the context active where each call is made (a traced
   * request's; fixed when the plugin was made, they were roots of traces of
   * their own, or all in the trace of the request that made the plugin). It
   * never sees that run end: when the runtime is gone (nothing can call its
   * hooks again), the spans it left open are ended as `abandoned` and what it
   * kept goes with it.
   */
  const active = (): Context => context.active();
  const spares = new WeakMap<object, Run>();
  const abandoned = new FinalizationRegistry<Run>((run) => run.endOpen("abandoned"));
  /** For hooks called with no frame of their turn (by hand, or in a browser after an await): one spare run, bounded. */
  const unframed = new Run(tracer, content, undefined, active, LOOSE_LIMIT);
  const looseFor = (turn: string | undefined): Run => {
    const runtime = frameCarrier.get()?.runtime;
    if (!runtime || turn === undefined || runtime.turn !== turn) return unframed;
    let run = spares.get(runtime);
    if (!run) {
      run = new Run(tracer, content, undefined, active, LOOSE_LIMIT);
      spares.set(runtime, run);
      abandoned.register(runtime, run);
    }
    return run;
  };
  /**
   * The run of `turn` with this attempt (each run's hooks say which they are
   * of), found exactly: two runs at once both ask the same step, and whichever
   * is answered first, each reply ends its own run's span. A run whose start
   * this plugin did not see (it came in below the turn's outermost call): its
   * spare run.
   */
  const runAt = (turn: string | undefined, attempt: number): Run =>
    (turn === undefined ? undefined : runs.get(turn)?.find((r) => r.attempt === attempt)?.run) ?? looseFor(turn);
  /** For a tool hook given no attempt (an engine older than the field): the turn's latest run (one that lost its lease stops before its next step). */
  const latestOf = (turn: string | undefined): Run => (turn === undefined ? undefined : runs.get(turn)?.at(-1)?.run) ?? looseFor(turn);
  /** Likewise for its result: the oldest run holding its key (a call that began before the turn was claimed again ends in its own run). */
  const holderOf = (turn: string | undefined, holds: (run: Run) => boolean): Run =>
    (turn === undefined ? undefined : runs.get(turn)?.find((r) => holds(r.run))?.run) ?? latestOf(turn);
  /**
   * Where a turn's span starts: under the tool call running it, when it is
   * run from inside another turn's tool (a delegated program answers in a
   * turn of its own, in the caller's tool call), else in the active context.
   */
  const parentFor = (turn: string): { parent: Context; caller?: CallerAt } => {
    const caller = frameCarrier.get();
    if (!caller || caller.runtime.turn === turn) return { parent: context.active() };
    const { runtime } = caller;
    const run = runAt(runtime.turn, runtime.journal.attempt);
    const at: CallerAt = { run, turn: runtime.turn, site: caller.site };
    // (a spare run has no turn span: its calls' spans are under the active context)
    return { parent: run.span === undefined ? context.active() : run.contextFor(runtime.turn, caller.site), caller: at };
  };

  return {
    name: "otel",
    version: "1",
    hooks: {
      turnStart(t) {
        let where: { parent: Context; caller?: CallerAt } = { parent: context.active() };
        let span: Span | undefined;
        quietly("turnStart", () => {
          where = parentFor(t.turn);
          span = tracer.startSpan(
            `invoke_agent ${t.name}`,
            { kind: SpanKind.INTERNAL, attributes: turnAttributes(t, content), links: linksFrom(t.kept) },
            where.parent,
          );
        });
        // kept also when its span could not start: the spans its calls start are ended with its end, never left
        // open in a spare run that never sees it end
        const started = runs.get(t.turn) ?? [];
        const run = new Run(tracer, content, span, where.parent);
        if (where.caller) run.caller = where.caller;
        started.push({ attempt: t.attempt, run });
        runs.set(t.turn, started);
        if (span)
          quietly("turnStart", () => {
            const { traceId, spanId, traceFlags } = span!.spanContext();
            if (isSpanContextValid(span!.spanContext())) t.keep({ traceId, spanId, traceFlags } satisfies KeptContext);
          });
      },
      turnEnd(end) {
        const started = runs.get(end.turn) ?? [];
        const at = started.findIndex((r) => r.attempt === end.attempt);
        if (at < 0) return;
        const { run } = started.splice(at, 1)[0]!;
        if (started.length === 0) runs.delete(end.turn);
        run.endOpen(end.state);
        // a delegated turn that waits for a person stops its caller's tool call for that person: not a failure
        const waits = waitsOf(end, run);
        if (waits && run.caller) run.caller.run.delegateWaits(run.caller.turn, run.caller.site, waits);
        else if (run.caller && end.state === "interrupted" && end.code === "turn-unfinished")
          run.caller.run.delegateUnfinished(run.caller.turn, run.caller.site, run);
        if (run.span) endQuietly("turnEnd", run.span, () => endTurnSpan(run.span!, end, run, content));
      },
      modelRequest(r) {
        const run = runAt(r.turn, r.attempt);
        run.settle(r.turn, r.site, r.attempt);
        // the conventions require the provider on invoke_agent: the turn's function's own first call names it (a
        // call inside a tool, another function's, names its chat span only; a run that replays every reply, none)
        if (run.span && !r.site.includes("/") && !named.has(run.span)) {
          named.add(run.span);
          quietly("modelRequest", () => run.span!.setAttributes(modelAttributes(r)));
        }
        quietly("modelRequest", () =>
          run.startChat(`${r.turn}:${r.site}:${r.step}`, r.turn, r.site, chatName(r.model), requestAttributes(r, content)),
        );
      },
      modelResponse(r) {
        const key = `${r.turn}:${r.site}:${r.step}`;
        const run = runAt(r.turn, r.attempt);
        // (the reply as the engine read it: one it refused, no usage or not JSON, comes as an error with its code)
        const { response } = r;
        if (response) run.used(response.usage);
        const span = run.takeChat(key);
        if (!span) return;
        endQuietly("modelResponse", span, () => {
          if (response) {
            const { usage, finishReason, model } = response;
            span.setAttributes({ [GEN_AI.inputTokens]: usage.inputTokens, [GEN_AI.outputTokens]: usage.outputTokens });
            // (a custom model's reply may leave these out, or give other values: attributes hold text, never [null] or an object)
            if (typeof finishReason === "string") span.setAttribute(GEN_AI.finishReasons, [finishReason]);
            // (the model a reply names, never checked for length: bounded as contents are)
            if (typeof model === "string") span.setAttribute(GEN_AI.responseModel, boundedText(model));
            if (content) span.setAttribute(GEN_AI.outputMessages, jsonText(outputMessages(response)));
          } else failSpan(span, typeof r.code === "string" ? r.code : "model_error", r.error, content);
        });
      },
      toolCall(call) {
        (call.attempt === undefined ? latestOf(call.turn) : runAt(call.turn, call.attempt)).toolCalled(call);
      },
      // the tool's body runs in its execute_tool span's context: spans its own code makes (an HTTP client's
      // instrumentation, the user's startActiveSpan) are children of it. The span starts here, as the tool is about
      // to run: a person or an approve function asked before it (in this process) is no part of its execution
      toolRun(call, run) {
        let span: Span | undefined;
        let held: Run | undefined;
        quietly("toolRun", () => {
          held = call.attempt === undefined ? latestOf(call.turn) : runAt(call.turn, call.attempt);
          span = held.toolRuns(call);
        });
        if (!span) return run();
        let running: Promise<unknown> | undefined;
        // (a context manager that throws runs it without the span's context, never twice nor not at all)
        quietly("toolRun", () => void context.with(trace.setSpan(context.active(), span!), () => (running = run())));
        const result = running ?? run();
        // (watched beside it: what is handed back is run's own promise, unchanged)
        result.then(undefined, (e: unknown) => quietly("toolRun", () => held!.toolThrew(call, e)));
        return result;
      },
      toolResult(result) {
        quietly("toolResult", () => {
          const run = result.attempt === undefined ? holderOf(result.turn, (run) => run.hasTool(result)) : runAt(result.turn, result.attempt);
          const { span, waiting, code } = run.takeTool(result);
          // stopped because a delegated turn waits for a person (the one it started, or one there before it, which
          // refused it: conversation-busy; then the engine says so, as no delegated turn of its own ended waiting): not a failure
          const waits =
            result.error === undefined
              ? undefined
              : (waiting ?? (result.needsPerson?.code === "turn-waiting" ? result.needsPerson.approvals : undefined));
          // (the turn's span tells it, also when this call's span was refused by the tracer)
          if (waits && !waiting) run.stoppedFor(waits);
          else if (!waits && result.error !== undefined && result.needsPerson?.code === "turn-unfinished") run.leftInDoubt(result);
          if (!span) return;
          endQuietly("toolResult", span, () => {
            // the input it ran with: a plugin after this one may have changed what the model gave (its span, made at
            // toolCall or by a call inside it, holds that)
            if (content) span.setAttribute(GEN_AI.toolArguments, jsonText(result.input));
            toldAnswers(span, result, content);
            if (waits) span.setAttribute(FUNCTAI.state, "waiting");
            else if (result.error !== undefined && result.needsPerson?.code === "turn-unfinished") {
              // it may have acted, and a person says what it did: a stop for that person, no failure (the turn's span says why it stopped)
              span.setAttribute(FUNCTAI.state, "unfinished");
            } else if (result.error !== undefined) {
              // (a call that never reached its tool, the model's fault or its schema's: why, as its stable code)
              const unrun = result.unrun?.code === "tool-blocked" ? undefined : result.unrun?.code;
              failSpan(span, unrun ?? code ?? "tool_error", result.error, content);
            } else if (content) span.setAttribute(GEN_AI.toolResult, jsonText(result.output));
          });
        });
      },
    },
  };
}
