export function chunks<T>(values: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}

/**
 * Runs `work` over `inputs` with at most `parallelism` in flight; results keep the input order. After a
 * failure no new input starts, and the first error is thrown only once every started call has settled,
 * so a caller that cleans up after the error never races a write still in flight.
 */
export async function inParallel<T, R>(
  inputs: readonly T[],
  parallelism: number,
  work: (input: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(inputs.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < inputs.length && !failure) {
      const index = next++;
      try {
        results[index] = await work(inputs[index] as T);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelism, inputs.length) }, worker));
  if (failure) throw failure.error;
  return results;
}

/**
 * `read`, with the calls for one key shared while a read of it is in flight: a call made while its key's
 * read is under way gets that read's result instead of starting another (the records of one SQS batch,
 * handled at once, that need the same item read it once). Nothing is kept once the read settles: the next
 * call reads afresh, so no caller gets a result that was read before its own call began, except from the
 * read it joined; a failure is the failure of every call that joined, and the next call tries again. A
 * write whose concurrent callers all want the same change (one that sets a value only if absent, say) can be
 * shared the same way.
 */
export function sharedWhileInFlight<A extends unknown[], R>(
  keyOf: (...args: A) => string,
  read: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  const inFlight = new Map<string, Promise<R>>();
  return (...args: A) => {
    const key = keyOf(...args);
    const pending = inFlight.get(key);
    if (pending) return pending;
    const started = read(...args).finally(() => inFlight.delete(key));
    inFlight.set(key, started);
    return started;
  };
}
