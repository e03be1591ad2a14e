// Independent requests at once, a bounded number in flight: a test that needs many independent
// setups (more links than any page) would otherwise make a chain of hundreds of round trips, which
// over a slow network is the whole run's critical path.

/** Most requests one test keeps in flight through inParallel. */
export const IN_FLIGHT = 8;

/** fn over every item, at most `limit` at once; results in the order of the items. */
export async function inParallel<T, R>(
  items: readonly T[],
  fn: (item: T, index: number) => Promise<R>,
  limit = IN_FLIGHT,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
