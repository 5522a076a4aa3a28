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
