/**
 * Hunt 111: what is read of a cut event's top-level keys, as its bytes stream by (EventHead, adapters/mcp), tells
 * whether it was known to be the answer to the call whose stream it was in. Each event is given whole and cut at
 * every byte: as far as it was read, an answer is known only when its keys show `result` or `error`, no `method`,
 * and its `id` (once read) is the call's.
 */
import { describe, expect, it } from "vitest";
import { EventHead } from "../../adapters/mcp/message-head.js";

/** Whether `event` (its lines, no blank line), read up to `cut` bytes, is known to answer request `id`. */
function answers(event: string, id: unknown, cut = Number.POSITIVE_INFINITY): boolean {
  const head = new EventHead();
  // an event before it, whose keys are forgotten at its blank line (lines framed as wire.ts's `bounded` does)
  let line = 0;
  const text = new TextEncoder().encode(`data: {"result":{},"id":7}\n\n${event}`);
  for (const b of text.subarray(0, text.length - event.length + Math.min(cut, event.length))) {
    if (b !== 0x0a) {
      head.byte(b);
      line++;
    } else if (line === 0) head.eventEnd();
    else {
      head.lineEnd();
      line = 0;
    }
  }
  return head.answers(id);
}

/** The SDK's answer, as it writes it: `result` first. */
const ANSWER = 'event: message\ndata: {"result":{"content":[{"type":"text","text":"a \\"method\\": x"}]},"jsonrpc":"2.0","id":3}';

describe("a cut event's top-level keys", () => {
  it("an answer in the SDK's order is known once its `result` key is read, however far it was cut after, until its `id` key (then once its id is read)", () => {
    const opened = ANSWER.indexOf('"result"') + '"result"'.length;
    const id = ANSWER.indexOf('"id"') + '"id"'.length;
    for (let cut = 0; cut <= ANSWER.length; cut++)
      expect(answers(ANSWER, 3, cut), `cut at ${cut}`).toBe((cut >= opened && cut < id) || cut === ANSWER.length);
  });

  it("an answer whose `id` is read and is another request's: not this call's", () => {
    expect(answers(ANSWER, 4)).toBe(false);
    expect(answers('data: {"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"no"}}', 4)).toBe(true);
    expect(answers('data: {"jsonrpc":"2.0","id":"5","error":{"code":-1,"message":"no"}}', 4)).toBe(false);
  });

  it('an `id` naming the request as text ("4" for 4) is its answer, as the SDK\'s Client reads it (hunt 158: one rule, namesRequest)', () => {
    expect(answers('data: {"jsonrpc":"2.0","id":"4","error":{"code":-1,"message":"no"}}', 4)).toBe(true);
    // (blank text and null name none, though Number reads them as 0: 0 is the client's initialize, never a call)
    expect(answers('data: {"jsonrpc":"2.0","id":"","error":{"code":-1,"message":"no"}}', 0)).toBe(false);
    expect(answers('data: {"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"no"}}', 0)).toBe(false);
  });

  it("a notification is no answer, at any cut; nor is a message with a `method` key beside its `result`", () => {
    const note = 'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"result":1,"id":3}}}';
    for (let cut = 0; cut <= note.length; cut++) expect(answers(note, 3, cut), `cut at ${cut}`).toBe(false);
    expect(answers('data: {"result":1,"method":"sampling/createMessage","id":3}', 3)).toBe(false);
  });

  it("keys read across data lines, escaped, after `data:` with no space; an unreadable message is no answer", () => {
    expect(answers('data:{"jsonrpc":"2.0",\ndata: "res\\u0075lt":1,\ndata:"\\u0069d":3}', 3)).toBe(true);
    expect(answers('data:{"jsonrpc":"2.0",\ndata: "res\\u0075lt":1,\ndata:"\\u0069d":5}', 3)).toBe(false);
    expect(answers('data: [{"result":1,"id":3}]', 3)).toBe(false);
    expect(answers(': a comment\nid: 9\ndata: "result"', 3)).toBe(false);
    expect(answers("event: message", 3)).toBe(false);
  });
});
