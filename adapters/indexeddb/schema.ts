import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import { ConversationError, describeError } from "../../src/errors.js";
import type { ConversationRecord } from "../../src/records/types.js";

/**
 * The database layout, version 1. Two object stores:
 * - `records`: every record, keyed `[conversation, seq]`, so one
 *   conversation's records are one contiguous, ordered key range;
 * - `lengths`: per conversation, how many records it holds. `append` reads
 *   and writes it in the same transaction as the records, which is what
 *   makes `expect` a real compare-and-append.
 */
export interface StoreSchema extends DBSchema {
  records: { key: [string, number]; value: ConversationRecord };
  lengths: { key: string; value: number };
}

export type StoreDB = IDBPDatabase<StoreSchema>;

export const SCHEMA_VERSION = 1;

const OBJECT_STORES = ["records", "lengths"] as const;

/** The version the database of this name has now, where the browser tells (`indexedDB.databases`). */
async function versionOf(name: string): Promise<number | undefined> {
  try {
    const found = (await indexedDB.databases()).find((d) => d.name === name);
    return typeof found?.version === "number" ? found.version : undefined;
  } catch {
    return undefined; // (a browser without databases(): the message goes without the number)
  }
}

/** The browser's VersionError, told as what it means here: a newer schema, and what to do. */
async function newerVersion(name: string, e: unknown): Promise<ConversationError> {
  const version = await versionOf(name);
  return new ConversationError(
    "store-io",
    `IndexedDB store "${name}": its database has ${version === undefined ? "a newer schema version" : `schema version ${version}`}, ` +
      `newer than this store's ${SCHEMA_VERSION}: a newer version of functai (in another tab, or before a downgrade) wrote it, ` +
      "or it belongs to another program of this site. This store will not write to it. " +
      "Update this app (and reload its other tabs), or give the store another name.",
    { cause: e },
  );
}

/**
 * Opens (creating on first use) the database. When another tab asks for a
 * newer version, or deletes the database, this connection closes itself
 * (`blocking`) instead of blocking it, and `onGone` tells the caller
 * (`deleted`: the database was deleted, not upgraded). A
 * database of a newer schema version, or one of this name that another
 * program of the origin made (without our object stores), is refused with a
 * store-io that says so: it is neither read nor written.
 *
 * A connection the browser closes itself (`terminated`: it deleted the
 * database, clearing the site's data or from DevTools, with no
 * `versionchange`) is gone too (`onGone(true)`): opened again, a database
 * another tab made anew since would be taken for the old one.
 *
 * `known`: this handle opened the database before. Then an open that finds
 * none (version 0) means it was deleted while the handle held no connection:
 * the creation is undone and `onGone(true)` told, never a new, empty
 * database taken for the old one.
 */
export function openStoreDB(name: string, onGone: (deleted: boolean) => void, known = false): Promise<StoreDB> {
  let vanished = false;
  return openDB<StoreSchema>(name, SCHEMA_VERSION, {
    upgrade(db, oldVersion, _newVersion, transaction) {
      if (oldVersion === 0 && known) {
        vanished = true;
        transaction.done.catch(() => {}); // (idb's promise of it rejects on the abort: the open's failure tells it)
        transaction.abort(); // (the open then fails, and the database it was creating is not kept)
        return;
      }
      if (oldVersion < 1) {
        db.createObjectStore("records");
        db.createObjectStore("lengths");
      }
    },
    blocking(_current, blocked, event) {
      (event.target as IDBDatabase).close();
      onGone(blocked === null); // (a deletion asks for no version)
    },
    // The browser closed the connection itself: it deleted the database (clearing the site's data, DevTools) or lost
    // it. Gone, as for a deletion: the next open cannot tell the old database from one another tab made anew since.
    terminated: () => onGone(true),
  }).then(
    (db) => {
      const missing = OBJECT_STORES.filter((s) => !db.objectStoreNames.contains(s));
      if (missing.length > 0) {
        db.close();
        throw new ConversationError(
          "store-io",
          `IndexedDB store "${name}": the database "${name}" of this site belongs to another program: it has no ${missing.map((s) => `"${s}"`).join(" nor ")} object store. ` +
            "This store will not write to it. Give the store another name.",
        );
      }
      return db;
    },
    async (e: unknown) => {
      if (vanished) {
        onGone(true);
        throw new ConversationError("store-io", `IndexedDB store "${name}": its database is gone (deleted under this handle).`, { cause: e });
      }
      if ((e as { name?: unknown } | null)?.name === "VersionError") throw await newerVersion(name, e);
      throw new ConversationError("store-io", `IndexedDB store "${name}": opening its database failed: ${describeError(e)}`, { cause: e });
    },
  );
}
