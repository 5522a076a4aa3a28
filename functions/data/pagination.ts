import { ValidationError } from '../shared/errors';
import { countWithinBudget, PAGE_BYTE_BUDGET } from '../shared/limits';
import { type Item, queryPrefixItems } from './client';
import type { TableKey } from './table-schema';

export interface Page<T> {
  items: T[];
  nextToken?: string;
}

/** What a client asks of a paged list: at most `limit` rows, after the page `nextToken` ended. */
export interface PageRequest {
  limit: number;
  nextToken?: string;
}

/**
 * A page of a list whose rows can be large: it also ends once its rows reach PAGE_BYTE_BUDGET, each weighed
 * by `bytesOf` as it will be serialized (proxyBytesOf of its view).
 */
export interface SizedPageRequest<T> extends PageRequest {
  bytesOf: (row: T) => number;
}

/**
 * The leading rows of a page read by `limit` that fit the byte budget. When some are left out, `next_token`
 * points just after the last row kept (`keyOf` gives a row's key as DynamoDB's LastEvaluatedKey would).
 */
export function cutToBudget<T>(
  page: Page<T>,
  bytesOf: (row: T) => number,
  keyOf: (row: T) => Record<string, unknown>,
): Page<T> {
  const count = countWithinBudget(page.items, bytesOf);
  if (count === page.items.length) return page;
  const items = page.items.slice(0, count);
  return { items, nextToken: encodeNextToken(keyOf(items[count - 1] as T)) };
}

/**
 * The items of partition `pk` whose sort key starts with `prefix`, in key order, read consistently: all of
 * them, or one page (at most `limit` items, fewer once they reach PAGE_BYTE_BUDGET) after the page its
 * `nextToken` ended.
 */
export async function queryPrefix(pk: string, prefix: string, page?: PageRequest): Promise<Page<Item>> {
  const { items, lastKey } = await queryPrefixItems(pk, prefix, {
    startKey: decodeNextToken(page?.nextToken, pk, prefix),
    limit: page?.limit,
    stopAfterBytes: page && PAGE_BYTE_BUDGET,
  });
  return { items, nextToken: encodeNextToken(lastKey) };
}

/** `next_token` is the opaque base64url form of DynamoDB's LastEvaluatedKey. */
export function encodeNextToken(lastKey: Record<string, unknown> | undefined): string | undefined {
  return lastKey ? Buffer.from(JSON.stringify(lastKey)).toString('base64url') : undefined;
}

/** DynamoDB's limits on a key attribute, in UTF-8 bytes: a forged token past them would fail the query (a 500). */
const MAX_PARTITION_KEY_BYTES = 2048;
const MAX_SORT_KEY_BYTES = 1024;

const fits = (value: string, maxBytes: number) =>
  value !== '' && Buffer.byteLength(value, 'utf8') <= maxBytes;

/**
 * Decodes a client's `next_token` and checks it points into the partition being listed, so a forged
 * token can neither read another partition nor make DynamoDB fail with a 500.
 */
export function decodeNextToken(
  token: string | undefined,
  partition: TableKey['pk'],
  skPrefix: string,
): TableKey | undefined {
  return decodeNextTokenAmong(token, [partition], skPrefix);
}

/** The same check for a list that runs through several partitions: the token must point into one of them. */
export function decodeNextTokenAmong(
  token: string | undefined,
  partitions: readonly TableKey['pk'][],
  skPrefix: string,
): TableKey | undefined {
  if (token === undefined) return undefined;
  const key = keyOfNextToken(token, skPrefix);
  if (key && partitions.includes(key.pk)) return key;
  throw invalidToken();
}

/**
 * The key a token names when it is well formed and its sort key has `skPrefix`, whatever its partition;
 * undefined otherwise. Only for a read started before the list's partitions are known, which decodeNextTokenAmong
 * then checks.
 */
export function keyOfNextToken(token: string, skPrefix: string): TableKey | undefined {
  try {
    const key = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<TableKey>;
    if (
      typeof key.pk === 'string' &&
      typeof key.sk === 'string' &&
      key.sk.startsWith(skPrefix) &&
      fits(key.sk, MAX_SORT_KEY_BYTES)
    ) {
      return { pk: key.pk, sk: key.sk };
    }
  } catch {
    // not a token this service wrote
  }
  return undefined;
}

function invalidToken(): ValidationError {
  return new ValidationError('query.next_token: is not a token this list returned');
}

/**
 * The same check for a list read from a global index: the token must hold the index partition being listed
 * and string keys only (an index page's key also carries the table's pk and sk).
 */
export function decodeIndexNextToken(
  token: string | undefined,
  index: { partitionKey: string; sortKey: string },
  partition: string,
): Record<string, string> | undefined {
  if (token === undefined) return undefined;
  try {
    const key = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Record<string, unknown>;
    const names = ['pk', 'sk', index.partitionKey, index.sortKey];
    if (
      key[index.partitionKey] === partition &&
      names.every((name) => typeof key[name] === 'string') &&
      Object.keys(key).length === names.length &&
      fits(key.pk as string, MAX_PARTITION_KEY_BYTES) &&
      fits(key[index.partitionKey] as string, MAX_PARTITION_KEY_BYTES) &&
      fits(key.sk as string, MAX_SORT_KEY_BYTES) &&
      fits(key[index.sortKey] as string, MAX_SORT_KEY_BYTES)
    ) {
      return Object.fromEntries(names.map((name) => [name, key[name] as string]));
    }
  } catch {
    // fall through to the validation error
  }
  throw invalidToken();
}
