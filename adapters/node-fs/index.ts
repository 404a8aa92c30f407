/**
 * `functai/node-fs`: conversations as JSONL files, one per conversation, at
 * `<dir>/conversations/<id>.jsonl`. The store (store.ts) over its parts:
 * appends under a cross-process lock (append.ts, lock.ts), lock-free reads
 * and their cache (reads.ts), the pool of open files (handles.ts), the file
 * and line formats (files.ts, jsonl.ts).
 */
export { fsStore, type FsStoreOptions } from "./store.js";
