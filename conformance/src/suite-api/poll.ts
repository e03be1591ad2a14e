// Time is polled, never slept: an asynchronous outcome is asked for again until it holds or the
// deadline passes (t.poll gives it the run's --async-timeout).
/** Calls `fn` until `done(value)` holds; throws after `timeoutMs` (t.poll: the run's --async-timeout) with the last value. */
export async function poll<T>(
  fn: () => Promise<T>,
  done: (v: T) => boolean,
  opts: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const intervalMs = opts.intervalMs ?? 200;
  const deadline = Date.now() + timeoutMs;
  let last: T;
  for (;;) {
    last = await fn();
    if (done(last)) return last;
    if (Date.now() >= deadline) {
      let shown: string;
      try {
        shown = JSON.stringify(last);
      } catch {
        shown = String(last);
      }
      throw new Error(
        `poll: condition not met within ${timeoutMs} ms (--async-timeout); last value: ${shown?.slice(0, 500)}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
