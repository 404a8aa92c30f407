import { FunctaiError } from "../../src/errors.js";
import type { Store } from "../../src/store/types.js";
import type { PostgresStore } from "./store.js";

/** Whether a string `store` names a PostgreSQL server. */
export const isPostgresUrl = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location);

/**
 * The store a string `store` such as `"postgres://…"` means: the Postgres
 * store, whose module (and `pg`) is loaded on first use only, so plain Node
 * users without `pg` never load it. A missing `pg` is a `package-missing`
 * error that names the package to install (at the first use).
 *
 * @example
 * ```ts
 * const store = lazyPostgresStore("postgres://app:secret@db:5432/app");
 * await store.read("sam");
 * ```
 */
export function lazyPostgresStore(url: string): Store {
  let loading: Promise<PostgresStore> | null = null;
  /** Closed: every call is refused from now on (a new store here would open a pool nobody ends). */
  let closed = false;
  const load = (): Promise<PostgresStore> =>
    closed
      ? Promise.reject(new FunctaiError("store-io", "The PostgreSQL store (postgres://…) is closed: make a new store to go on."))
      : (loading ??= import("./index.js").then(
          (m) => m.postgresStore({ connectionString: url }),
          (e: unknown) => {
            loading = null;
            const missing = /Cannot find (package|module) '?pg'?/.test(String((e as Error)?.message));
            throw new FunctaiError(
              missing ? "package-missing" : "store-io",
              missing
                ? `The store "postgres://…" needs the package "pg": install it (npm install pg).`
                : `The PostgreSQL store could not be loaded: ${String((e as Error)?.message ?? e)}`,
              { cause: e },
            );
          },
        ));
  return {
    durability: "disk",
    append: async (c, records, opts) => (await load()).append(c, records, opts),
    read: async (c, after) => (await load()).read(c, after),
    scan: async (c, after, visit) => (await load()).scan!(c, after, visit),
    wait: async (c, after, timeoutMs) => (await load()).wait!(c, after, timeoutMs),
    list: async () => (await load()).list!(),
    length: async (c) => (await load()).length!(c),
    lengths: async () => (await load()).lengths!(),
    liveness: {
      refusesAtOnce: true, // the store's own (liveness.ts): a try of the lock
      hold: async (c, turn) => (await load()).liveness!.hold(c, turn),
      isHeld: async (c, turn) => (await load()).liveness!.isHeld(c, turn),
      confirm: async (c, turn) => (await load()).liveness!.confirm!(c, turn),
    },
    close: async () => {
      closed = true;
      const was = loading;
      loading = null;
      if (was) await (await was.catch(() => null))?.close();
    },
  };
}
