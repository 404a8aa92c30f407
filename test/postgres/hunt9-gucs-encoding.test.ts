/**
 * `client_encoding` set on the store's role (or database) to something other
 * than UTF8, as a legacy app sharing the server may have it. The `pg` driver
 * speaks UTF-8 on the wire and says so the role says is what
 * the server converts to and from. Records hold text in any script.
 */
import { describe, expect, it } from "vitest";
import { rec } from "../store/contract.js";
import { perTest } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER, freshSchema } from "./server.js";

const { playground, open } = perTest();

/** Text a customer may write: Latin accents, and scripts LATIN1 has no letters for. */
const LATIN = "Rückerstattung für café";
const WIDE = "返金をお願いします — Возврат";

describe.skipIf(NO_SERVER !== null)("postgres store: client_encoding of the role", () => {
  it("UTF8 (the default): records in any script are read back exactly by another host", async () => {
    const ground = await playground();
    const schema = freshSchema();
    await open(ground.url, schema).append("c", [rec("note", { text: LATIN }), rec("note", { text: WIDE })]);
    const read = await open(ground.url, schema).read("c");
    expect(read.map((r) => (r as { text?: string }).text)).toEqual([LATIN, WIDE]);
  });

  it("a writer whose role has client_encoding LATIN1: another host (UTF8) reads its records exactly", async () => {
    const ground = await playground({ client_encoding: "LATIN1" });
    const schema = freshSchema();
    const writer = open(ground.url, schema);
    await writer.append("c", [rec("note", { text: LATIN }), rec("note", { text: WIDE })]);
    // the other host: the superuser on the same database (its client_encoding is the server's UTF8)
    const other = open(ground.adminUrl, schema);
    const read = await other.read("c");
    expect(read.map((r) => (r as { text?: string }).text)).toEqual([LATIN, WIDE]);
  });

  it("a reader whose role has client_encoding LATIN1 (its database SQL_ASCII): reads text written by another host exactly", async () => {
    const ground = await playground({ client_encoding: "LATIN1" }, { client_encoding: "SQL_ASCII" });
    const schema = freshSchema();
    const reader = open(ground.url, schema);
    await reader.length!("c"); // the role makes the tables (so it may read them)
    await open(ground.adminUrl, schema).append("c", [rec("note", { text: LATIN }), rec("note", { text: WIDE })]);
    const read = await reader.read("c");
    expect(read.map((r) => (r as { text?: string }).text)).toEqual([LATIN, WIDE]);
  });

  it("a connection string with options=-c client_encoding=LATIN1: written and read back exactly, by it and by another host", async () => {
    const ground = await playground();
    const schema = freshSchema();
    const latin = open(`${ground.url}?options=${encodeURIComponent("-c client_encoding=LATIN1")}`, schema);
    await latin.append("c", [rec("note", { text: LATIN }), rec("note", { text: WIDE })]);
    for (const store of [latin, open(ground.url, schema)])
      expect((await store.read("c")).map((r) => (r as { text?: string }).text)).toEqual([LATIN, WIDE]);
    // what the server holds is the text itself, not its bytes taken as another encoding's letters
    const rows = await ground.sql<{ t: string }>(`SELECT record->>'text' AS t FROM "${schema}".records WHERE conversation = 'c' ORDER BY seq`);
    expect(rows.map((r) => r.t)).toEqual([LATIN, WIDE]);
  });
});
