import { defaultStore } from "../store/default-store.browser.js";
import { syncCarrier } from "./sync-carrier.js";
import type { PlatformRuntime } from "./types.js";

export const platform: PlatformRuntime = { defaultStore, createCarrier: syncCarrier };
