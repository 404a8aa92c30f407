/**
 * A `store` option resolved to a store (runtime/stores.ts): what is no
 * location and no Store is refused as `settings-invalid` where it is
 * resolved, for every caller (a conversation checks its settings first;
 * `serve` takes its store straight to `resolveStore`). An empty text named
 * the working directory: `serve({ store: "" })` served the conversations
 * of wherever the process was started.
 */
import { afterEach, describe, expect, it } from "vitest";
import { serve } from "../../adapters/websocket/index.js";
import { closeStores, resolveStore } from "../../src/runtime/stores.js";
import { memoryStore } from "../../src/store/memory.js";
import { codeOf } from "../store/contract.js";

afterEach(async () => {
  await closeStores();
});

describe("resolveStore", () => {
  it("refuses an empty location and what is no Store (settings-invalid), and opens nothing", async () => {
    for (const bad of ["", 42, {}, { append: () => 1 }, null]) {
      expect(await codeOf(async () => resolveStore(bad as never)), JSON.stringify(bad)).toBe("settings-invalid");
    }
  });

  it("still gives a Store as it is", () => {
    const store = memoryStore();
    expect(resolveStore(store)).toBe(store);
  });

  it('serve({ store: "" }) is refused before it listens, not a server on the working directory', async () => {
    let server: Awaited<ReturnType<typeof serve>> | undefined;
    try {
      const code = await codeOf(async () => {
        server = await serve({ store: "", programs: [], port: 0 });
      });
      expect(code).toBe("settings-invalid");
    } finally {
      await server?.close();
    }
  });
});
