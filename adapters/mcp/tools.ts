import { abortError } from "../../src/engine/runtime.js";
import { FunctaiError, describeError } from "../../src/errors.js";
import type { Effects } from "../../src/records/types.js";
import { untilAborted } from "../../src/runtime/abort.js";
import { IDEMPOTENCY_KEY, answerOf, cutOff, mayHaveRun, outputCheck, send } from "./call.js";
import { listAll, listedNow, listingFailed, refuseUnreadable, sameJson, watchListing } from "./list-tools.js";
import { loadListingReader } from "./listing.js";
import { LEAVE_OUT, checkOptions, chosen, offerable } from "./options.js";
import { connectionLost, loadAuthErrors, notConnectedError, outcomeUnknown, refuseUnconnected, refusedUnread } from "./refusals.js";
import { HeldBack, heldBackError, serverAnswers } from "./request.js";
import { type McpCallResult, loadResultReader, outputProblem, unreadable, userParts } from "./result.js";
import type { McpClient, McpTool, McpToolInfo, McpToolsOptions } from "./types.js";
import { inputSchemaFrom, loadCheckMaker } from "./validate.js";
import { OversizedMessage, UnreadableMessage } from "./watch.js";
import { AcceptedRequest, AnswerStreamEnded, OversizedBody, boundWire } from "./wire.js";

export type { McpClient, McpTool, McpToolInfo, McpToolsOptions } from "./types.js";

/**
 * The effects an MCP tool's annotations say: `readOnlyHint: true` reads;
 * anything else (annotations missing included) changes, as an undeclared tool does.
 *
 * @example
 * effectsOf({ name: "find_order", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }); // "reads"
 * effectsOf({ name: "refund", inputSchema: { type: "object" } });                                          // "changes"
 */
export const effectsOf = (info: McpToolInfo): Effects => (info.annotations?.readOnlyHint === true ? "reads" : "changes");

/**
 * The tools of a connected MCP server, as functai tools: name, description
 * and the server's input JSON Schema given to the model as they are (inputs
 * are checked against that schema before a tool runs). Effects come from
 * the annotations (`readOnlyHint: true` reads, anything else changes) unless
 * `effects` says otherwise. A result's structured content, else its content
 * parts, is what the model sees (images, audio and blobs by MIME type and
 * size, never their base64; parts for the user only left out, counted, and
 * shown to the person with the call's result, `ctx.show`: see {@link outputOf}); `isError` is a tool error the model sees. A call to
 * a changing tool that was sent and never answered (the connection closed
 * or its transport failed under it, or it timed out), or answered with a
 * result that cannot be read (not an MCP result, no content, or structured content that
 * breaks the tool's output schema, checked here for every tool whatever page
 * of the listing it was on, and for every result not marked `isError`; or a
 * JSON-RPC answer whose result or error the transport cannot read, which fails
 * the call it answered at once, not at its timeout: see {@link untilUnreadable}; so does an answer whose
 * `id` is `null`, left out or no request id, when it is the one request waiting; and over Streamable HTTP, an answer
 * to the call's POST naming another id, which the call it names, if one waits, is not given either), or whose connection the
 * transport closed for a message past its limit (said, with the limit: 10 MB over stdio),
 * may have acted: the turn stops for a person, resumable (`turn-unfinished`),
 * the call unfinished (a client whose `onclose` connects it again at once included: the SDK's "Connection closed"
 * is still its own, not the server's answer). A reading call whose connection was lost under it is `remote-closed`,
 * saying so. The server's own error answers are tool errors the model sees, those with the SDK's
 * codes too (-32000; a -32001 the server sends, "timed out", stops a changing call for a person, saying the
 * server answered it); so is a call the server refused before running it (an HTTP 4xx to its POST, as after
 * a restart that lost the client's session: `remote-closed`, `remote-auth`, `remote-rate-limit`, told by the
 * SDK error's message and status, not its class's name, which bundlers rename), and so is a call on a client
 * whose connection is closed (its server ended): `remote-closed`, "Not connected to the MCP server <name>",
 * saying to connect the client again; never sent, it did not run, a changing call's included. Once the server
 * says its tools changed (notifications/tools/list_changed), or the client connected anew, each tool is looked
 * up again before it runs (one listing for all the calls waiting), and is not sent when the server no longer
 * lists it, lists it with another input or output schema, or, taken as reading by its annotations, now says it
 * changes (`settings-invalid`, a tool error the model sees: take the tools again with mcpTools); a call whose
 * turn is stopped while it waits for that listing stops waiting (`turn-aborted`), never sent. A call refused
 * for its OAuth token (the SDK's `UnauthorizedError` or `OAuthError` from the transport's OAuth provider, or its
 * 401/403 after authorizing anew) is `remote-auth`: it did not run; a listing refused so is `remote-auth` too; so is
 * one whose new token could not be got (the OAuth authorization server down, its connection reset, or answering
 * an error: the call was held back, unsent). A call for which no connection could be made (refused, no such host)
 * is `remote-closed`: nothing was sent, a changing call's included; so is a call whose POST was answered with a redirect
 * the transport did not follow (to another origin, a 301/302/303 of the POST, one without Location, past the SDK's
 * or fetch's count, any under `redirect: "manual"` or `"error"`): it did not run (a transport's `redirectPolicy:
 * "follow"` is kept once mcpTools took its tools). A call whose answer's stream ends before the answer and cannot be
 * resumed (over Streamable HTTP its POST's stream, none of whose events had an id the SDK takes; one whose resumption
 * failed: its GET with Last-Event-ID answered 404 or 405, or not with a stream of events, the SDK giving up after its
 * tries; a stream it was resumed on that ends before the answer with no id of its own is resumed from the same id again,
 * where the SDK would lose it; over the old SSE transport its one stream) fails at once, not at its timeout: a changing call stops its turn for a person (it may have run), a reading
 * one is `remote-closed` (a listing too). A result past 1,000,000 characters (as the
 * model would read it: its text, its structured content as JSON, its error's words) is `tool-failed`, a tool
 * error the model sees, saying its size and the bound, nothing of it kept; a changing tool's says it ran (its
 * `done` record keeps that: it is never run again on its own). Over Streamable HTTP an answer is read no
 * further than 16,000,000 bytes on the wire (a JSON answer in all, a stream each event, the GET stream the client
 * opened when it connected included: mcpTools reopens it so before it lists the tools; not over the old SSE
 * transport, whose one stream, opened when it connected, carries its session): past it, reading stops and
 * the call is `tool-failed` as above, a changing tool's saying it ran (a listing's is `remote-protocol`). A call
 * whose timeout ends while its POST, refused for its OAuth token, waits for a new one (the token endpoint not
 * answering) is `remote-auth`, saying it did not run, and is never sent when the token comes (a listing so is
 * `remote-auth` too). A listing past 10,000 tools is `remote-protocol`. An answer whose
 * `jsonrpc` is wrong or missing fails the call it answered at once, as one whose result cannot be read; so does one
 * with a top-level key JSON-RPC does not name, whose `id` is a call waiting (over stdio, and over Streamable HTTP on
 * the POST that carried the call), never read leniently. A call refused with an HTTP 4xx over the old SSE transport
 * is a tool error as over Streamable HTTP, saying what to fix. The SDK's Client never connected is
 * `settings-invalid`; a wrapper of it (no `transport`) whose methods are not bound to it is said to be one. A tool
 * with an input named `__proto__` (which a JavaScript object cannot keep) is `settings-invalid`. Each call sends its `ctx.idempotencyKey` in the
 * request's `_meta` as `functai.dev/idempotencyKey` (the same for a person's
 * rerun; an SDK server's handler reads it in `extra._meta`), so a server that
 * deduplicates performs it once. A reading tool's unreadable answer is a tool
 * error the model sees (`remote-protocol`, saying what is wrong with it). The
 * tools are journaled, approved and resumed like any tool; a stopped turn
 * cancels the request, as does a call past `timeout` (ms; the SDK's default is
 * 60,000). A listing that fails is `remote-closed` (the connection is
 * gone) or `remote-protocol` (the server answered with an error or an answer that
 * cannot be read, or its pages go round in a circle or never end); so is a taken tool whose name the server
 * lists twice, or that breaks MCP's schema of a tool (leave it out with
 * `include`: the rest are usable). A `nextCursor: ""` is the last page. A `null` where MCP lets a field be left out
 * (`nextCursor: null`, a tool's `description: null`, a result's
 * `structuredContent: null`) is read as left out. A tool whose name, input names or schema providers refuse, whose
 * schema names a JSON Schema dialect functai does not check (it checks 2020-12,
 * MCP's default, 2019-09, draft-07 and draft-06), or that runs only as a task
 * (`execution.taskSupport: "required"`), is `settings-invalid`: leave it out with
 * `include`. An `include` test must answer at once (one that answers a promise
 * is `settings-invalid`).
 *
 * @example
 * import { Client } from "@modelcontextprotocol/sdk/client/index.js";
 * import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
 * import { mcpTools } from "functai/mcp";
 *
 * const client = new Client({ name: "desk", version: "1.0.0" });
 * await client.connect(new StdioClientTransport({ command: "node", args: ["orders-server.js"] }));
 * const tools = await mcpTools(client, { include: ["lookup_order", "refund"] });
 * const desk = ai("desk", { description: "Help the customer.", input: { message: z.string() }, tools });
 */
export async function mcpTools(client: McpClient, options: McpToolsOptions = {}): Promise<McpTool[]> {
  if (!client || typeof client.listTools !== "function" || typeof client.callTool !== "function")
    throw new FunctaiError("settings-invalid", "mcpTools takes a connected Client of @modelcontextprotocol/sdk");
  checkOptions(options);
  refuseUnconnected(client);
  // the SDK first: without it, it is the package to name (ajv comes with it)
  const readResult = await loadResultReader();
  const makeCheck = await loadCheckMaker();
  const listingReader = await loadListingReader();
  // over HTTP, answers are bounded on the wire from now on, the GET stream the client opened when it connected
  // reopened so (what the server says on it while it is reopened goes nowhere: the tools are listed after)
  await boundWire(client);
  // watched from before the listing: a word that the tools changed while it is read is not missed
  const listed = watchListing(client);
  const listing = await listAll(client, listingReader, options.timeout);
  const tools = chosen(listing.tools, options);
  refuseUnreadable(tools, listing.unreadable);
  return tools.map((info) => {
    const { name, parameters } = offerable(info);
    let check;
    try {
      check = makeCheck(parameters);
    } catch (e) {
      throw new FunctaiError(
        "settings-invalid",
        `the MCP tool ${name} has an input schema that cannot be checked: ${describeError(e)}; ${LEAVE_OUT}`,
        { cause: e },
      );
    }
    const checkOutput = outputCheck(info, name, makeCheck);
    // own keys only: a tool named "constructor" or "toString" would find Object.prototype's function
    const given = options.effects && Object.hasOwn(options.effects, name) ? options.effects[name] : undefined;
    const effects = given ?? effectsOf(info);
    /**
     * Once the server said its tools changed (or the client connected anew), the tool is looked up again before
     * it runs (see {@link listedNow}), and not run when the server no longer lists it, lists it with another input
     * schema (the model's arguments were written, and checked, for the old one) or output schema (its answer
     * would be checked against the old one), or, taken as reading by its
     * annotations, now says it changes (it was offered as reading, and is called with no person asked).
     */
    const stillListed = async (): Promise<void> => {
      let latest: Map<string, McpToolInfo> | undefined;
      try {
        latest = await listedNow(client, listed, listingReader, options.timeout);
      } catch (e) {
        const why = e instanceof FunctaiError ? e : listingFailed(client, e);
        throw new FunctaiError(
          why.code,
          `the MCP tool ${name} was not run: the MCP server said its tools changed, and they could not be listed again to see whether it is still the tool it was (${why.message})`,
          { cause: e },
        );
      }
      if (latest === undefined) return;
      const again = "take the server's tools again with mcpTools";
      const now = latest.get(name);
      if (now === undefined)
        throw new FunctaiError(
          "settings-invalid",
          `the MCP server no longer lists ${name} (its tools changed after mcpTools took them), so it was not run: ${again}`,
        );
      if (!sameJson(now.inputSchema, info.inputSchema))
        throw new FunctaiError(
          "settings-invalid",
          `the MCP server changed the input schema of ${name} after mcpTools took it, so it was not run (its input was written for the old schema): ${again}`,
        );
      // its answer would be checked against the output schema it had (a good answer read as one that breaks it)
      if (!sameJson(now.outputSchema, info.outputSchema))
        throw new FunctaiError(
          "settings-invalid",
          `the MCP server changed the output schema of ${name} after mcpTools took it, so it was not run (its answer would be checked against the old schema): ${again}`,
        );
      if (given === undefined && effects === "reads" && effectsOf(now) === "changes")
        throw new FunctaiError(
          "settings-invalid",
          `the MCP server now says ${name} changes things (its annotations changed after mcpTools took it as reading), so it was not run: ${again}, to call it as a changing tool (approved like one), or give its effects with mcpTools(client, { effects })`,
        );
    };
    /** An answer that came back and cannot be read: a changing tool may have acted on it (a person says), a reading one fails. */
    const unreadableAnswer = (why: string, cause?: unknown): Error =>
      effects === "changes"
        ? mayHaveRun(name, `the MCP server's answer could not be read (${why})`)
        : new FunctaiError(
            "remote-protocol",
            `the MCP server's answer to ${name} could not be read: ${why}`,
            cause === undefined ? undefined : { cause },
          );
    const tool: McpTool = {
      kind: "mcp",
      name,
      description: info.description ?? info.title ?? "",
      inputSchema: inputSchemaFrom(check),
      parameters,
      info,
      toolEffects: effects,
      composite: false,
      // a person's result (resume's results) is what the server's structured content would be: held to the same schema
      checkResult: (output) =>
        checkOutput === undefined ? null : outputProblem(checkOutput, { content: [], structuredContent: output as Record<string, unknown> }),
      async runAsTool(input, ctx) {
        let result: unknown;
        const reader = readResult();
        // a call stopped while its tool is looked up again stops waiting, and is never sent (the listing goes on)
        await untilAborted(stillListed(), ctx.signal, abortError);
        try {
          // a stopped turn cancels the request (the SDK sends notifications/cancelled to the server)
          const params = { name, arguments: input, _meta: { [IDEMPOTENCY_KEY]: ctx.idempotencyKey } };
          result = await send(client, params, reader, ctx.signal, options.timeout);
        } catch (e) {
          if (ctx.signal.aborted) throw e;
          // its answer (or a message of its stream) was past what is read of one on the wire (over HTTP)
          if (e instanceof OversizedBody) throw cutOff(name, e, effects);
          // its POST was answered 202 Accepted: the server took it (it may have acted), and no answer will come
          if (e instanceof AcceptedRequest)
            throw effects === "changes"
              ? mayHaveRun(name, e.message)
              : new FunctaiError("remote-protocol", `the MCP tool ${name} did not finish: ${e.message}`, { cause: e });
          // its POST was held back for an OAuth token that did not come in time: the server never took it
          if (e instanceof HeldBack) throw heldBackError(`the call of ${name}`, e);
          // a result came back that the SDK could not read (not an MCP result, or breaking the tool's output
          // schema): the server took the call and answered it, so it may have acted, whatever the answer said
          if (reader.answered()) throw unreadableAnswer(unreadable(e), e);
          // an answer to this call came back that the transport could not read (not JSON-RPC): the server answered it
          if (e instanceof UnreadableMessage) throw unreadableAnswer(e.message, e.cause);
          // the connection closed for a message of the server's too large to read: perhaps this call's answer
          if (e instanceof OversizedMessage) {
            if (effects === "changes") throw mayHaveRun(name, e.message);
            throw new FunctaiError("remote-closed", `the MCP tool ${name} could not be called: ${e.message}`, { cause: e.cause });
          }
          // the client has no connection (its server ended): nothing was sent, so nothing ran, a changing tool's call included
          const unconnectedError = notConnectedError(client, e, `the MCP tool ${name} was not called`);
          if (unconnectedError !== undefined) throw unconnectedError;
          // the server refused it unread (a session it no longer knows, after a restart): a tool error, it never ran
          const refused = refusedUnread(name, e, e instanceof Error ? await loadAuthErrors() : undefined);
          if (refused !== undefined) throw refused;
          if (effects === "changes" && outcomeUnknown(e))
            throw mayHaveRun(
              name,
              serverAnswers.has(e as object) ? `the MCP server answered ${describeError(e)}` : `${describeError(e)}, and no answer came back`,
            );
          // a reading call whose answer's stream ended without it (see AnswerStreamEnded): no answer will come
          if (e instanceof AnswerStreamEnded)
            throw new FunctaiError("remote-closed", `the MCP tool ${name} did not finish: ${e.message}`, { cause: e });
          // a reading call whose connection was lost under it: said so, with a code, not as the transport's bare error
          if (connectionLost(e))
            throw new FunctaiError(
              "remote-closed",
              `the MCP tool ${name} did not finish: the connection to the MCP server was lost during the call (${describeError(e)})`,
              { cause: e },
            );
          throw e;
        }
        // the parts for the user only go to the person with the call's result (`ctx.show`), never to the model
        for (const part of userParts(result as McpCallResult)) ctx.show(part);
        return answerOf(name, result as McpCallResult, reader, checkOutput, unreadableAnswer, effects);
      },
    };
    return tool;
  });
}
