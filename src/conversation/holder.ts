/**
 * Who holds a turn's lease, as its `lease` records name it, and whether that
 * holder is provably alive. Where the platform knows processes (Node), a
 * holder is `p1:<pid>:<pid start>:<place>:<token>`: the place is a hash of
 * the host name and pid namespace, so a pid is only looked up where it means
 * the same process. Elsewhere (browsers) a holder is a random id, and the
 * turn's Web Lock tells whether it lives.
 */
import { platform } from "#runtime";
import { newHolder } from "../ids.js";

const HOLDER = /^p1:(\d{1,10}):(\d*):([0-9a-f]{8}):([0-9a-z]+)/;
/** This process's tokens begin so: a holder with our pid and start but another nonce was an earlier process's. */
const NONCE = Math.random().toString(36).slice(2, 8).padEnd(6, "0");
let issued = 0;
/** Holders found gone (a pid that died stays dead, for the same start): not looked up again. Bounded. */
const gone = new Set<string>();
/** The holders of this process's leases whose turns run here now (from the lease won to the turn let go). */
const runningHere = new Set<string>();

/** Notes that a lease of this process runs its turn here now (`runs`), or has let it go. */
export function runsHere(holder: string, runs: boolean): void {
  if (runs) runningHere.add(holder);
  else runningHere.delete(holder);
}

/** A new holder id for a lease of this process. */
export function leaseHolder(): string {
  const self = platform.processes?.self;
  if (!self) return newHolder();
  return `p1:${self.pid}:${self.start}:${self.place}:${NONCE}${(issued++).toString(36)}`;
}

/**
 * Whether the process named by `holder` runs: true (provably alive: same
 * host and pid namespace, and its pid runs), false (provably gone), or
 * undefined (cannot tell: another host, another kind of holder). A holder of
 * this very process is alive while its turn runs here, whatever its lease
 * says (a renewal held up by a blocked event loop or a slow disk does not
 * let a reader in this process, a `serve()` beside the turn, take it for
 * interrupted), and gone once its turn stopped here (a store that failed
 * mid-turn left its lease standing).
 */
export function holderAlive(holder: string | null): boolean | undefined {
  const processes = platform.processes;
  const m = holder === null || !processes ? null : HOLDER.exec(holder);
  if (!m || !processes) return undefined;
  const [, pid, start, place, token] = m as unknown as [string, string, string, string, string];
  const { self } = processes;
  if (place !== self.place) return undefined;
  if (Number(pid) === self.pid && start === self.start) return token.startsWith(NONCE) && runningHere.has(holder!);
  if (gone.has(m[0])) return false;
  if (processes.runs(Number(pid), start)) return true;
  if (gone.size >= 4096) gone.clear();
  gone.add(m[0]);
  return false;
}
