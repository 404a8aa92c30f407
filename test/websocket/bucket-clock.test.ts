/** The rate limit's token bucket when the wall clock is set back (NTP, a user, a VM resumed). */
import { describe, expect, it } from "vitest";
import { TokenBucket } from "../../adapters/websocket/server/limits.js";

describe("the token bucket and a clock set back", () => {
  it("an hour back takes no tokens away: the connection is not refused for an hour", () => {
    let now = 10_000_000;
    const bucket = new TokenBucket(10, 3, () => now);
    expect(bucket.take()).toBe(true);
    now -= 3_600_000;
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, false]); // what was left, no less
    now += 100; // one token, counted from the new time
    expect([bucket.take(), bucket.take()]).toEqual([true, false]);
  });
});
