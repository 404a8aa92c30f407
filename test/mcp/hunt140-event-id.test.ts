/**
 * Hunt 140: the id the SDK's Streamable HTTP transport resumes a stream from (its Last-Event-ID) is the id of the last
 * event its parser (eventsource-parser, which it reads streams with) gives with one; functai keeps that id as the
 * stream's bytes go by (EventHead.lastId, adapters/mcp) to know whether the SDK can resume a stream, and which
 * resumption (a GET carrying it) is whose. It took any `id` line for one: an event of an id alone, which the parser
 * drops with its id, made a stream the SDK cannot resume look resumable (see hunt140-resumption-fails). Each stream
 * here is read by both, and the ids must agree. (The parser is imported as the SDK installs it, its dependency: the
 * one it reads with.)
 */
import { createParser } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import { EventHead } from "../../adapters/mcp/message-head.js";

/** The id the SDK resumes `stream` from: the last `id` of an event its parser gives, when not empty (`undefined`: none). */
function sdkLastId(stream: string): string | undefined {
  let last: string | undefined;
  const parser = createParser({
    onEvent: (event) => {
      if (event.id) last = event.id;
    },
  });
  parser.feed(stream);
  return last;
}

/** What EventHead keeps of `stream`, its lines framed as wire.ts's `bounded` frames them (CR, LF or CRLF ends a line). */
function headLastId(stream: string): string | null | undefined {
  const head = new EventHead();
  let line = 0;
  let afterCR = false;
  for (const b of new TextEncoder().encode(stream)) {
    if (b === 0x0a && afterCR) {
      afterCR = false;
      continue;
    }
    afterCR = b === 0x0d;
    if (b === 0x0a || b === 0x0d) {
      if (line === 0) head.eventEnd();
      else head.lineEnd();
      line = 0;
    } else {
      head.byte(b);
      line++;
    }
  }
  return head.lastId;
}

const STREAMS: Record<string, string> = {
  "an event with an id and data": "id: a\ndata: x\n\n",
  "an event of an id alone (dropped by the parser)": "id: a\n\n",
  "an id alone after an event with one": "id: a\ndata: x\n\nid: b\n\n",
  "an event's last id line is its id": "id: a\nid: b\ndata: x\n\n",
  'an "id" line with no colon empties it': "id: a\nid\ndata: x\n\n",
  "an empty id": "id:\ndata: x\n\n",
  "an id with a NUL in it": "id: a\u0000b\ndata: x\n\n",
  'a "data" line with no colon is data': "id:a\ndata\n\n",
  "one space after the colon is not the id's, a second is": "data: x\nid:  a\n\n",
  "a later event with no id keeps the last": "id: a\ndata: x\n\ndata: y\n\n",
  "the SDK server's priming event, then a message": 'id: s_1\nretry: 10\ndata: \n\nevent: message\nid: s_2\ndata: {"jsonrpc":"2.0"}\n\n',
  "CRLF lines": "id: a\r\ndata: x\r\n\r\nid: b\r\n\r\n",
  // (a comment after: the parser holds a CR that ends what it was given, which may be a CRLF's)
  "CR lines": "id: a\rdata: x\r\r: more\r",
  "a field named like id": "ids: a\ndata: x\n\n",
  "an event the stream ends in, with no blank line after it": "id: a\ndata: x\n\nid: b\ndata: y\n",
};

describe("the id the SDK resumes a stream from", () => {
  for (const [name, stream] of Object.entries(STREAMS))
    it(`${name}: as the SDK's parser reads it`, () => {
      expect(headLastId(stream)).toBe(sdkLastId(stream));
    });

  it("an id longer than functai keeps (1,024 bytes): known to be there, not what it is", () => {
    expect(headLastId(`id: ${"a".repeat(1025)}\ndata: x\n\n`)).toBeNull();
    expect(headLastId(`id: ${"a".repeat(1024)}\ndata: x\n\n`)).toBe("a".repeat(1024));
  });
});
