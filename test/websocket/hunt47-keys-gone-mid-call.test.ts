/**
 * A call is checked again whenever the keys changed while it read the
 * conversation it joins (`setKeys` may have narrowed its key). On a loopback
 * server whose keys were all taken away meanwhile (`setKeys([])`: anyone may
 * connect), the key as it is now was made anew at each look, never the same
 * as the last: the check went round for ever, in microtasks, and the server
 * (its whole process) stopped: no reply, no timer, no other companion served.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { spawnScript } from "../store/fs-children.js";

const CHILD = fileURLToPath(new URL("./fixtures/hunt47-rekey-server.ts", import.meta.url));

describe("an owner call while every key is taken away (setKeys([]) on loopback)", () => {
  it("runs under the key as it is now, and the server goes on serving", async () => {
    const child = spawnScript(CHILD, []);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<"hung">((r) => (timer = setTimeout(() => r("hung"), 15_000)));
    const done = await Promise.race([child.exited.then(() => "exited" as const), deadline]);
    clearTimeout(timer);
    if (done === "hung") child.proc.kill("SIGKILL");
    expect(done).toBe("exited");
    // the call ran (it waits for the refund's approval, saved), and the connection answers a read after it
    expect(child.lines).toEqual(['outcome {"state":"waiting"}', "waiting 1"]);
  }, 30_000);
});
