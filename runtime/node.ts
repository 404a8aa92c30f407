import { AsyncLocalStorage } from "node:async_hooks";
import { defaultStore, storeKey } from "./default-store.node.js";
import { processes } from "./processes.node.js";
import type { AsyncCarrier, PlatformRuntime } from "../src/runtime/types.js";

function createCarrier<T>(): AsyncCarrier<T> {
  const als = new AsyncLocalStorage<T>();
  return { acrossAwait: true, run: (value, fn) => als.run(value, fn), get: () => als.getStore() };
}

export const platform: PlatformRuntime = { kind: "node", defaultStore, storeKey, createCarrier, processes };
