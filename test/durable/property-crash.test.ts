// The crash property (fixtures/crash-property.ts) on the memory store.
import { memoryStore } from "../../src/index.js";
import { crashProperty } from "./fixtures/crash-property.js";

crashProperty("memory store", { makeStore: async () => memoryStore() });
