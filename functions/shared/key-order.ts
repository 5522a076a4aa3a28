/**
 * The value with the keys of every object sorted (as JavaScript sorts strings), at every depth: equal JSON,
 * whatever order its objects' keys came in, serialises to the same bytes.
 */
export function inKeyOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(inKeyOrder);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, inKeyOrder((value as Record<string, unknown>)[key])]),
  );
}
