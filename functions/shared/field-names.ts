/**
 * The service's records are camelCase in code and snake_case on the wire and in the table (the spec's
 * field names, the stored attribute names). These turn one into the other, so a record's fields are
 * listed once and both shapes follow from that list.
 */

/** `serviceTimeMinutes` -> `service_time_minutes`, as a type. */
export type SnakeCase<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeCase<Rest>}`
  : S;

/** `service_time_minutes` -> `serviceTimeMinutes`, as a type. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer C}${infer Rest}`
  ? `${Head}${Uppercase<C>}${CamelCase<Rest>}`
  : S;

export const snakeCase = <S extends string>(name: S) =>
  name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) as SnakeCase<S>;

export const camelCase = <S extends string>(name: S) =>
  name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) as CamelCase<S>;

/** Fields `keys` of a record as the API shows them: snake_case names, in that order, absent ones null. */
export type ApiFields<T, K extends keyof T & string> = {
  [P in K as SnakeCase<P>]-?: undefined extends T[P] ? Exclude<T[P], undefined> | null : T[P];
};

/** Each field's snake_case name, worked out once: a page of 1,000 items names the same few fields 1,000 times. */
const snakeNames = new Map<string, string>();
const snakeName = (name: string): string => {
  let snake = snakeNames.get(name);
  if (snake === undefined) {
    snake = snakeCase(name);
    snakeNames.set(name, snake);
  }
  return snake;
};

export function apiFields<T, const K extends keyof T & string>(
  record: T,
  keys: readonly K[],
): ApiFields<T, K> {
  const fields: Record<string, unknown> = {};
  for (const key of keys) fields[snakeName(key)] = record[key] ?? null;
  return fields as ApiFields<T, K>;
}

/** A record read from the wire (snake_case names) with its fields named as in code. */
export type CamelFields<T> = { [P in keyof T & string as CamelCase<P>]: T[P] };

export function camelFields<T extends object>(record: T): CamelFields<T> {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [camelCase(key), value]),
  ) as CamelFields<T>;
}
