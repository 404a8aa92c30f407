/** Random bytes drawn 4 KiB at a time (a call into the random source costs more than 16 bytes of it). */
const pool = new Uint8Array(4096);
let used = pool.length;
function randomInto(bytes: Uint8Array): void {
  if (used + bytes.length > pool.length) {
    crypto.getRandomValues(pool);
    used = 0;
  }
  bytes.set(pool.subarray(used, used + bytes.length));
  used += bytes.length;
}

/** Each byte's two hex digits. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** A time-ordered id (UUID version 7): turns sort by when they were sent. */
export function newTurnId(now = Date.now()): string {
  const bytes = new Uint8Array(16);
  randomInto(bytes);
  let t = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = t % 256;
    t = Math.floor(t / 256);
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  let id = "";
  for (let i = 0; i < 16; i++) id += (i === 4 || i === 6 || i === 8 || i === 10 ? "-" : "") + HEX[bytes[i]!];
  return id;
}

/** Who holds a lease: this process (or tab) and a random part. */
export const newHolder = (): string => `h:${Math.random().toString(36).slice(2, 10)}:${Date.now().toString(36)}`;
