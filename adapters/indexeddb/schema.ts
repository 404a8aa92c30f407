import { openDB, type DBSchema, type IDBPDatabase } from "idb";
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

/**
 * Opens (creating on first use) the database. When another tab asks for a
 * newer version, this connection closes itself (`blocking`) instead of
 * blocking it, and `onGone` lets the caller open again on next use.
 */
export function openStoreDB(name: string, onGone: () => void): Promise<StoreDB> {
  return openDB<StoreSchema>(name, SCHEMA_VERSION, {
    upgrade(db, oldVersion) {
      if (oldVersion < 1) {
        db.createObjectStore("records");
        db.createObjectStore("lengths");
      }
    },
    blocking(_current, _blocked, event) {
      (event.target as IDBDatabase).close();
      onGone();
    },
    terminated: onGone,
  });
}
