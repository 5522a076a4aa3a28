import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchExecuteStatementCommand,
  BatchGetCommand,
  BatchWriteCommand,
  type BatchWriteCommandInput,
  DynamoDBDocumentClient,
  type NativeAttributeValue,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { awsClientOptions, config, perConfig } from '../shared/config';
import { traceAwsClient } from '../shared/observability';
import { chunks, inParallel } from '../shared/parallel';
import type { TableKey } from './table-schema';

const documentClient = perConfig(() =>
  DynamoDBDocumentClient.from(traceAwsClient(new DynamoDBClient(awsClientOptions('DYNAMODB'))), {
    marshallOptions: { removeUndefinedValues: true },
  }),
);

/**
 * The document client, made on first use (once per cold start on Lambda, where the endpoint comes from
 * AWS_ENDPOINT_URL_DYNAMODB locally, never from code; `configure` may give it one). Each call is a subsegment
 * of the invocation's trace (a no-op where tracing is off).
 */
export const db: DynamoDBDocumentClient = new Proxy({} as DynamoDBDocumentClient, {
  get(_, property) {
    const client = documentClient();
    const value = Reflect.get(client, property, client);
    return typeof value === 'function' ? value.bind(client) : value;
  },
});

/** The table's name (TABLE_NAME), read on first use. */
export const tableName = (): string => config().tableName;

/** True when a write was refused by its condition (as a plain call or inside a transaction). */
export function isConditionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ConditionalCheckFailedException') return true;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (
    error.name === 'TransactionCanceledException' &&
    !!reasons?.some((r) => r.Code === 'ConditionalCheckFailed')
  );
}

/**
 * True when a single write's condition failed (`index` 0), or when a transaction was cancelled because
 * the condition of its item at `index` failed.
 */
export function conditionFailedAt(error: unknown, index: number): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ConditionalCheckFailedException') return index === 0;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return error.name === 'TransactionCanceledException' && reasons?.[index]?.Code === 'ConditionalCheckFailed';
}

/**
 * True when a transaction was cancelled because another transaction was changing one of its items at the
 * same time (DynamoDB orders them by cancelling one): the caller reads again and retries.
 */
export function isTransactionConflict(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return false;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return !!reasons?.some((r) => r.Code === 'TransactionConflict');
}

export type Item = Record<string, NativeAttributeValue>;

/** DynamoDB's limit on the items of one TransactWriteItems call. */
export const MAX_TRANSACTION_ITEMS = 100;

/** Writes the items in one transaction: all of them, or none when a condition fails. */
export const writeTransaction = (items: NonNullable<TransactWriteCommandInput['TransactItems']>) =>
  db.send(new TransactWriteCommand({ TransactItems: items }));

/**
 * Items of one transaction, and the outcome a failure of one of their conditions means to the caller (a
 * part without one has conditions that must hold: their failure is thrown).
 */
export interface TransactionPart<Refusal extends string> {
  items: NonNullable<TransactWriteCommandInput['TransactItems']>;
  refusedAs?: Refusal;
}

/**
 * Writes the parts' items in one transaction: 'written', or, when conditions failed, the outcome of the first
 * part (in order) with a failed condition that names one; else `conflictAs`, when given, when DynamoDB
 * cancelled the transaction for another one writing one of its items at the same time (read again). Any other
 * error is thrown, the failed conditions of parts without an outcome among them. An entity module's writes
 * name their outcomes this way, so that the use cases never count items of a transaction.
 */
export async function writeTransactionParts<Refusal extends string, Conflict extends string = never>(
  parts: readonly TransactionPart<Refusal>[],
  { conflictAs }: { conflictAs?: Conflict } = {},
): Promise<'written' | Refusal | Conflict> {
  try {
    await writeTransaction(parts.flatMap((part) => part.items));
    return 'written';
  } catch (error) {
    let index = 0;
    for (const { items, refusedAs } of parts) {
      const failed = items.some((_, offset) => conditionFailedAt(error, index + offset));
      if (failed && refusedAs !== undefined) return refusedAs;
      index += items.length;
    }
    if (conflictAs !== undefined && isTransactionConflict(error)) return conflictAs;
    throw error;
  }
}

/**
 * Runs a query page after page until `limit` items (or, without a limit, all of them) are read, or until
 * the items read reach `stopAfterBytes` (as JSON): a paged list whose rows turn out large stops reading
 * about where its byte budget ends its page. Returns the key to continue from when more remain, and the bytes
 * read as it counts them (0 without `stopAfterBytes`).
 */
export async function queryItems(
  input: Omit<QueryCommandInput, 'TableName' | 'Limit'>,
  limit?: number,
  { stopAfterBytes }: { stopAfterBytes?: number } = {},
): Promise<{ items: Item[]; lastKey?: Record<string, unknown>; bytesRead: number }> {
  const items: Item[] = [];
  let bytesRead = 0;
  let startKey = input.ExclusiveStartKey;
  do {
    const page = await db.send(
      new QueryCommand({
        ...input,
        TableName: tableName(),
        ExclusiveStartKey: startKey,
        Limit: limit === undefined ? undefined : limit - items.length,
      }),
    );
    items.push(...(page.Items ?? []));
    if (stopAfterBytes !== undefined) {
      for (const item of page.Items ?? []) bytesRead += Buffer.byteLength(JSON.stringify(item));
    }
    startKey = page.LastEvaluatedKey;
  } while (
    startKey &&
    (limit === undefined || items.length < limit) &&
    (stopAfterBytes === undefined || bytesRead < stopAfterBytes)
  );
  return { items, lastKey: startKey, bytesRead };
}

/**
 * The items of partition `pk` whose sort key starts with `prefix`, in key order, read consistently as queryItems
 * reads them (after `startKey`, at most `limit`, stopping after `stopAfterBytes`): all of them when nothing
 * bounds the read. A list a client pages through goes through queryPrefix (pagination.ts), which checks its token.
 */
export const queryPrefixItems = (
  pk: string,
  prefix: string,
  read: { startKey?: Record<string, unknown>; limit?: number; stopAfterBytes?: number } = {},
) =>
  queryItems(
    {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
      ExclusiveStartKey: read.startKey,
      ConsistentRead: true,
    },
    read.limit,
    { stopAfterBytes: read.stopAfterBytes },
  );

/** The errors DynamoDB throttles a whole batch with, once the SDK's own retries are spent. */
const THROTTLED = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
]);
/** Retries in a row that may process nothing before a batch is given up (up to about 17 s of backoff). */
export const MAX_RETRIES_WITHOUT_PROGRESS = 12;
const MAX_BACKOFF_MS = 2_000;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends a batch until nothing of it is left: DynamoDB leaves part of a batch unprocessed, or throttles all of
 * it, while a partition is at its limit (1,000 write units a second on one key), which a large route's rows
 * hit for as long as they take to write. What is left is sent again after a capped exponential backoff with
 * full jitter, restarting from a short pause whenever a try processed something, so a batch that keeps moving
 * is never given up; it is given up once MAX_RETRIES_WITHOUT_PROGRESS retries in a row processed nothing.
 */
export async function withUnprocessedRetry<T extends readonly unknown[]>(
  send: (pending: T) => Promise<T | undefined>,
  first: T,
  sleep: (ms: number) => Promise<void> = pause,
): Promise<void> {
  let pending: T | undefined = first;
  let withoutProgress = 0;
  while (pending) {
    const before: number = pending.length;
    try {
      pending = await send(pending);
    } catch (error) {
      if (!(error instanceof Error && THROTTLED.has(error.name))) throw error;
    }
    if (!pending) return;
    withoutProgress = pending.length < before ? 0 : withoutProgress + 1;
    if (withoutProgress > MAX_RETRIES_WITHOUT_PROGRESS)
      throw new Error(`DynamoDB processed none of ${pending.length} batch items in ${withoutProgress} tries`);
    await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, 50 * 2 ** withoutProgress));
  }
}

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** Sends the requests 25 per BatchWriteItem, `parallelism` at a time, until none is left unprocessed. */
async function writeAll(requests: WriteRequest[], parallelism: number): Promise<void> {
  await inParallel(chunks(requests, 25), parallelism, (chunk) =>
    withUnprocessedRetry<WriteRequest[]>(async (pending) => {
      const result = await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
      const unprocessed = result.UnprocessedItems?.[tableName()];
      return unprocessed?.length ? unprocessed : undefined;
    }, chunk),
  );
}

export const putAll = (items: readonly Item[], parallelism = 8) =>
  writeAll(
    items.map((Item) => ({ PutRequest: { Item } })),
    parallelism,
  );

export const deleteAll = (keys: readonly TableKey[], parallelism = 8) =>
  writeAll(
    keys.map((Key) => ({ DeleteRequest: { Key } })),
    parallelism,
  );

/** BatchExecuteStatement's limit on the statements of one call. */
export const MAX_BATCH_STATEMENTS = 25;

/**
 * The per-statement errors of a BatchExecuteStatement that mean "send that statement again": the partition
 * was at its limit (a throttled statement answers `ThrottlingError` on an on-demand table, as captured in
 * boto/boto3#3834, `ProvisionedThroughputExceeded` on a provisioned one, with the call itself answered 200),
 * or a transaction was changing the item at that moment.
 */
const RETRIED_STATEMENT_ERRORS = new Set([
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
  'TransactionConflict',
]);

/**
 * Puts each item (at most MAX_BATCH_STATEMENTS) where no item has its key, as PartiQL INSERTs in one
 * BatchExecuteStatement: a put conditional on the item not existing at the price of a plain put (1 write
 * unit per KB; a condition in a transaction costs twice that), many per request. Returns the items whose key
 * was taken (`DuplicateItem`), in the order given; statements throttled are sent again as withUnprocessedRetry
 * does for batches. Every item must have the same attributes.
 */
export async function insertItems(items: readonly Item[]): Promise<Item[]> {
  const [first] = items;
  if (!first) return [];
  const names = Object.keys(first);
  const statement = `INSERT INTO "${tableName()}" VALUE {${names.map((name) => `'${name}': ?`).join(', ')}}`;
  const duplicates = new Set<Item>();
  await withUnprocessedRetry<readonly Item[]>(async (pending) => {
    const { Responses = [] } = await db.send(
      new BatchExecuteStatementCommand({
        Statements: pending.map((item) => ({
          Statement: statement,
          Parameters: names.map((name) => item[name]),
        })),
      }),
    );
    const retried: Item[] = [];
    for (const [index, item] of pending.entries()) {
      const code = Responses[index]?.Error?.Code;
      if (code === undefined) continue;
      if (code === 'DuplicateItem') duplicates.add(item);
      else if (RETRIED_STATEMENT_ERRORS.has(code)) retried.push(item);
      else throw new Error(`DynamoDB refused an INSERT with ${code}: ${Responses[index]?.Error?.Message}`);
    }
    return retried.length ? retried : undefined;
  }, items);
  return items.filter((item) => duplicates.has(item));
}

/** Reads every key that exists (consistently), 100 per BatchGetItem. */
export async function getAll(keys: readonly TableKey[], parallelism = 8): Promise<Item[]> {
  const found: Item[] = [];
  await inParallel(chunks(keys, 100), parallelism, (chunk) =>
    withUnprocessedRetry(async (requestKeys) => {
      const result = await db.send(
        new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: requestKeys, ConsistentRead: true } } }),
      );
      found.push(...(result.Responses?.[tableName()] ?? []));
      const unprocessed = result.UnprocessedKeys?.[tableName()]?.Keys;
      return unprocessed?.length ? (unprocessed as TableKey[]) : undefined;
    }, chunk),
  );
  return found;
}
