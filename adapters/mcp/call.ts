/** Sending one `tools/call`, and reading its answer: bounded, checked against the tool's output schema. */
import { NeedsPerson } from "../../src/engine/runtime.js";
import { notJson } from "../../src/engine/tool-boundary.js";
import { FunctaiError, describeError } from "../../src/errors.js";
import type { Effects } from "../../src/records/types.js";
import { LEAVE_OUT } from "./options.js";
import { onWire, timed } from "./request.js";
import { type McpCallResult, type ResultReader, outputOf, outputProblem } from "./result.js";
import type { CallParams, McpClient, McpToolInfo } from "./types.js";
import type { CheckMaker, JsonCheck } from "./validate.js";
import { untilUnreadable } from "./watch.js";
import type { OversizedBody, PostedRequest } from "./wire.js";

/**
 * The key of a `tools/call` request's `_meta` that carries the call's
 * `ctx.idempotencyKey` (a prefix of functai's own, as MCP asks of `_meta`
 * keys): the same for a call's first run and a person's rerun of it, so a
 * server can perform it once.
 */
export const IDEMPOTENCY_KEY = "functai.dev/idempotencyKey";

/**
 * Sends one `tools/call`. Through the client's `request` when it has one: the SDK's `callTool` adds only
 * its check of the output, made with a validator that hands back the first schema it compiled for an
 * `$id` (two tools whose output schemas share one were checked against one schema; functai checks each
 * tool's own, see {@link outputCheck}), and its refusal of a tool that must run as a task, which
 * {@link offerable} refuses at listing, whatever page it was on.
 */
export async function send(
  client: McpClient,
  params: CallParams,
  reader: ResultReader,
  outer: AbortSignal,
  timeout: number | undefined,
): Promise<unknown> {
  const key = (params._meta as Record<string, unknown> | undefined)?.[IDEMPOTENCY_KEY];
  const carries = (m: PostedRequest) => {
    const p = m.params as { name?: unknown; _meta?: Record<string, unknown> } | undefined;
    return m.method === "tools/call" && p?.name === params.name && p?._meta?.[IDEMPOTENCY_KEY] === key;
  };
  // an answer the transport cannot read fails the call at once, not at the timeout (see untilUnreadable)
  return onWire(client, carries, outer, (signal) =>
    untilUnreadable(client, signal, (signal) =>
      timed(client, signal, timeout, (options) =>
        client.request === undefined
          ? client.callTool(params, reader.schema, options)
          : client.request({ method: "tools/call", params }, reader.schema, options),
      ),
    ),
  );
}

/**
 * A changing MCP tool's call left in doubt (`why`: what happened to it): its turn stops for a person, who says
 * what it returned or asks for a rerun. One wording for every way a call is left so.
 */
export const mayHaveRun = (name: string, why: string): NeedsPerson =>
  new NeedsPerson(`the MCP tool ${name} may have run: ${why}. Say what it returned, or ask for a rerun.`);

/**
 * An answer cut off on the wire (see {@link OversizedBody}): a tool error the model sees, as a result past
 * {@link MAX_RESULT_CHARS} is (see {@link tooLarge}): the server took the call and answered it, so a changing
 * tool's says it ran. A changing tool's call whose message cut is not known to be its answer (a notification sent
 * while it ran, perhaps: the call was then cancelled mid-run) may have run: its turn stops for a person.
 */
export function cutOff(name: string, e: OversizedBody, effects: Effects): Error {
  if (effects === "changes" && !e.answer) return mayHaveRun(name, `${e.message}, and it was not known to be its answer (the call was cancelled)`);
  const sizes = `more than ${e.limit.toLocaleString("en-US")} bytes${e.stream ? " in one message of its answer's stream" : ""}, past what functai reads of an answer (it takes at most ${MAX_RESULT_CHARS.toLocaleString("en-US")} characters of a tool's result)`;
  return new FunctaiError(
    "tool-failed",
    effects === "changes"
      ? `the MCP tool ${name} ran, and its answer was ${sizes}: it was not read, nor kept. It did run: do not call it again to see its result`
      : `the MCP tool ${name}'s answer was ${sizes}: it was not read, nor kept; ask for less, if the tool can give less`,
    { cause: e },
  );
}

/** The check of a tool's output schema, when it lists one (see {@link outputProblem}). */
export function outputCheck(info: McpToolInfo, name: string, makeCheck: CheckMaker): JsonCheck | undefined {
  if (info.outputSchema === undefined) return undefined;
  try {
    return makeCheck(info.outputSchema);
  } catch (e) {
    throw new FunctaiError(
      "settings-invalid",
      `the MCP tool ${name} has an output schema that cannot be checked: ${describeError(e)}; ${LEAVE_OUT}`,
      { cause: e },
    );
  }
}

/**
 * The most of a tool's result functai takes, in characters (UTF-16 code units, as JavaScript counts a string's
 * length) of what the model would read: its text, its structured content as JSON, or its error's words. Some
 * 250,000 tokens, past the whole context of most models: a larger result is a request no model takes (a provider
 * 400 at every step), and it would be kept whole in the journal's `done` record, read back by every resume.
 * A result past it is a tool error the model sees, `tool-failed`, saying its size and this bound, and nothing of
 * it is kept; a changing tool's error says it ran (its `done` record keeps that: it is never run again on its own).
 */
const MAX_RESULT_CHARS = 1_000_000;

/** A result past {@link MAX_RESULT_CHARS} (`size` characters): what the model is told, and the `done` record keeps. */
function tooLarge(name: string, size: number, effects: Effects): FunctaiError {
  const sizes = `${size.toLocaleString("en-US")} characters, past the ${MAX_RESULT_CHARS.toLocaleString("en-US")} characters functai takes of a tool's result`;
  return new FunctaiError(
    "tool-failed",
    effects === "changes"
      ? `the MCP tool ${name} ran, and its result was ${sizes}: it is not shown, nor kept. It did run: do not call it again to see its result`
      : `the MCP tool ${name}'s result was ${sizes}: it is not shown, nor kept; ask for less, if the tool can give less`,
  );
}

/**
 * What the model is shown of a server's answer to one call (see {@link outputOf}), checked first: an answer
 * with no content, with structured content that breaks the tool's output schema (`checkOutput`) or that the
 * journal cannot keep, cannot be read, and is thrown as `cannotRead` makes it (a changing tool may have acted).
 */
export function answerOf(
  name: string,
  result: McpCallResult,
  reader: ResultReader,
  checkOutput: JsonCheck | undefined,
  cannotRead: (why: string, cause?: unknown) => Error,
  effects: Effects,
): unknown {
  // an answer with no content is not a tool's result as MCP says (the SDK would show it as [])
  if (reader.bare()) throw cannotRead("it has no content, which MCP requires of a tool's result");
  // checked here, not left to the client: it checks only the tools of its last listing's last page
  let broken: string | null;
  try {
    broken = checkOutput === undefined ? null : outputProblem(checkOutput, result);
  } catch (e) {
    // the check itself failed on it (a recursive schema over content nested past the stack)
    broken = `its structured content could not be checked against the tool's output schema: ${describeError(e)}`;
  }
  if (broken !== null) throw cannotRead(broken);
  let output: unknown;
  try {
    output = outputOf(name, result);
  } catch (e) {
    // an error's words are shown to the model and kept too: bounded as a result is
    const said = e instanceof FunctaiError ? e.message.length : 0;
    if (said > MAX_RESULT_CHARS) throw tooLarge(name, said, effects);
    throw e;
  }
  if (typeof output === "string") {
    if (output.length > MAX_RESULT_CHARS) throw tooLarge(name, output.length, effects);
    return output;
  }
  // output the journal cannot keep (structured content nested too deep to write as JSON) would be a tool error
  // the model sees, "its output is not JSON", and could answer by calling again: the server acted
  const lost = notJson(output);
  if (lost !== undefined) throw cannotRead(`its structured content cannot be kept as JSON: ${lost}`);
  const size = JSON.stringify(output)?.length ?? 0;
  if (size > MAX_RESULT_CHARS) throw tooLarge(name, size, effects);
  return output;
}
