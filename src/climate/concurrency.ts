/** Running async work over a list with a bounded number in flight. */

/**
 * Calls `worker(item, index, signal)` for every item with at most `limit` calls in flight and
 * resolves with the results in item order. On the first failure no new calls start, the `signal`
 * passed to the workers is aborted (so in-flight work can stop early) and the promise rejects
 * with that first error. Aborting `outerSignal` does the same with its reason.
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  worker: (item: T, index: number, signal: AbortSignal) => Promise<R>,
  outerSignal?: AbortSignal,
): Promise<R[]> {
  const controller = new AbortController();
  const onOuterAbort = () => controller.abort(outerSignal!.reason);
  if (outerSignal?.aborted) throw outerSignal.reason;
  outerSignal?.addEventListener('abort', onOuterAbort, { once: true });
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | null = null;
  const run = async (): Promise<void> => {
    while (failure === null && !controller.signal.aborted && next < items.length) {
      const index = next++;
      try {
        results[index] = await worker(items[index]!, index, controller.signal);
      } catch (error) {
        if (failure === null) failure = { error };
        controller.abort(error);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, run));
  } finally {
    outerSignal?.removeEventListener('abort', onOuterAbort);
  }
  if (failure !== null) throw (failure as { error: unknown }).error;
  if (outerSignal?.aborted) throw outerSignal.reason;
  return results;
}
