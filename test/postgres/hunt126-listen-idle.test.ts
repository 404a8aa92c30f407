/**
 * Hunt 126: the store's LISTEN connection under a role's idle_session_timeout.
 * It sends nothing between its probes (every 5 s), so a timeout below that
 * ended it again and again: each time it was made anew (and the waiters' lengths
 * read again), for as long as the store lived. Waits still woke; the
 * connections churned for ever. Counted here as events: the listener's
 * reconnects over a few seconds of idling.
 */
import { describe, expect, it } from "vitest";
import { pgDb } from "../../adapters/postgres/pg-db.js";
import { perTest, query } from "./fixtures/hunt9-gucs-kit.js";
import { NO_SERVER } from "./server.js";

const { playground } = perTest();

/** Longer than three of the role's idle_session_timeouts, shorter than the listener's probe (5 s): a window to count in. */
const IDLE_WINDOW_MS = 3_500;

describe.skipIf(NO_SERVER !== null)("postgres store (hunt 126): the LISTEN connection under idle_session_timeout", () => {
  it("is not ended and made again while it idles: no reconnects in a window of three timeouts, and a notification still arrives", async () => {
    const ground = await playground({ idle_session_timeout: "1000" });
    const db = pgDb({ connectionString: ground.url });
    let reconnects = 0;
    const heard: string[] = [];
    let told: () => void = () => undefined;
    const arrived = new Promise<void>((r) => (told = r));
    const stop = await db.listen(
      "hunt126_idle",
      (payload) => {
        heard.push(payload);
        told();
      },
      () => reconnects++,
    );
    try {
      // a fixed window to count reconnects in, not a wait for a condition
      await new Promise((r) => setTimeout(r, IDLE_WINDOW_MS));
      expect(reconnects).toBe(0);
      await query(ground.adminUrl, "SELECT pg_notify('hunt126_idle', 'still here')");
      await arrived;
      expect(heard).toEqual(["still here"]);
    } finally {
      await stop();
      await db.close();
    }
  });
});
