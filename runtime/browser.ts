import { defaultStore } from "./default-store.browser.js";
import { syncCarrier } from "./sync-carrier.js";
import type { PlatformRuntime } from "../src/runtime/types.js";

export const platform: PlatformRuntime = { kind: "browser", defaultStore, createCarrier: syncCarrier };
