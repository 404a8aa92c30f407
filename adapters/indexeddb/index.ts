/**
 * `functai/indexeddb`: the store for browsers. Records live in IndexedDB,
 * appends wake other tabs (BroadcastChannel), and running turns hold Web
 * Locks so other tabs can tell a live tab from a dead one.
 */
export { indexedDBStore, type IndexedDBStoreOptions } from "./store.js";
