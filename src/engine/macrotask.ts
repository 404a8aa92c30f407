/**
 * Resolves after the microtasks queued now have run (a macrotask): a stream's
 * consumer, which reads events through several promise hops, has then seen
 * every event emitted so far. Node: setImmediate; browsers: a MessageChannel
 * (setTimeout(0) is clamped to 4 ms when nested).
 */
const g = globalThis as { setImmediate?: (callback: () => void) => unknown };

export const macrotask: () => Promise<void> =
  typeof g.setImmediate === "function"
    ? () => new Promise<void>((resolve) => void g.setImmediate!(resolve))
    : (() => {
        const waiting: (() => void)[] = [];
        let channel: MessageChannel | null = null;
        return () =>
          new Promise<void>((resolve) => {
            if (!channel) {
              channel = new MessageChannel();
              channel.port1.onmessage = () => waiting.shift()?.();
            }
            waiting.push(resolve);
            channel.port2.postMessage(0);
          });
      })();
