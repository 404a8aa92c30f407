/** The stores' wait/close contract (test/store/fixtures/hunt69-close-contract.ts) on a real PostgreSQL server. */
import { describe } from "vitest";
import { postgresStore } from "../../adapters/postgres/index.js";
import { closedWaitContract } from "../store/fixtures/hunt69-close-contract.js";
import { NO_SERVER, SERVER_URL, dropSchema, freshSchema } from "./server.js";

describe.skipIf(NO_SERVER !== null)("on a real PostgreSQL server", () => {
  closedWaitContract("postgresStore", async () => {
    const schema = freshSchema();
    return {
      store: postgresStore({ connectionString: SERVER_URL ?? "" }, { schema }),
      reopen: async () => postgresStore({ connectionString: SERVER_URL ?? "" }, { schema }),
      cleanup: () => dropSchema(schema).then(() => undefined),
    };
  });
});
