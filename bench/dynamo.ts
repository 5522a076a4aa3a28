import { setTimeout as sleep } from 'node:timers/promises';
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchExecuteStatementCommand,
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  type NativeAttributeValue,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { chunks, inParallel as runInParallel } from '../functions/shared/parallel';
import { LOCAL_CREDENTIALS } from '../local/services';
import type { StackInfo } from './runtime';

/**
 * The bench's own, plain DynamoDB calls on the runtime's DynamoDB Local: the "raw" side of the comparisons.
 * Written here rather than borrowed from functions/data so that the baseline is the bare API usage (the same
 * document client and marshalling options as the service, the same batch sizes and retry of unprocessed
 * items), whatever the service's code does.
 */
export type Row = Record<string, NativeAttributeValue>;
export type Key = { pk: string; sk: string };

export interface WriteStats {
  ms: number;
  items: number;
  requests: number;
  /** Requests sent again for items DynamoDB left unprocessed. */
  retries: number;
  /**
   * Write units on AWS's rules: 1 per started KB of each item written, twice that inside a transaction. For
   * PutItem and BatchWriteItem the ConsumedCapacity DynamoDB Local returns (ReturnConsumedCapacity: 'TOTAL',
   * NaN when a response had none); for TransactWriteItems computed from the items' sizes (itemSize), as
   * DynamoDB Local reports 2 units per transaction whatever it holds (checked with 1 to 100 puts).
   */
  units: number;
  /** What DynamoDB Local's ConsumedCapacity said, summed (differs from `units` for transactions only). */
  reportedUnits: number;
}

/** The units of one response's ConsumedCapacity (NaN when it has none). */
function unitsOf(consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): number {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  if (list.length === 0) return Number.NaN;
  return list.reduce((total, entry) => total + (entry.CapacityUnits ?? Number.NaN), 0);
}

/** Counters of a write run that has not started. */
function emptyStats(items: number): WriteStats {
  return { ms: 0, items, requests: 0, retries: 0, units: 0, reportedUnits: 0 };
}

/**
 * A document client on `endpoint` (DynamoDB Local itself, or the local AWS endpoint in front of it) as the
 * local operator, with the service's marshalling options.
 */
export function documentClient(stack: StackInfo, endpoint: string): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint, region: stack.region, credentials: LOCAL_CREDENTIALS }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
}

export class RawTable {
  readonly db: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Stops the batch operations between requests (they then throw its reason). */
  readonly #abort: AbortSignal | undefined;

  constructor(stack: StackInfo, abort?: AbortSignal) {
    this.tableName = stack.table_name;
    this.#abort = abort;
    // DynamoDB Local itself: the raw baseline skips the local AWS endpoint's checks.
    this.db = documentClient(stack, stack.emulator_endpoints.dynamodb);
  }

  async get(key: Key): Promise<Row | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    return Item;
  }

  /** Which of `keys` (at most 100) exist, read consistently; retries unprocessed keys. */
  async existing(keys: readonly Key[]): Promise<Set<string>> {
    const found = new Set<string>();
    let pending: Key[] | undefined = [...keys];
    for (let attempt = 0; pending?.length; attempt++) {
      if (attempt > 10) throw new Error('BatchGetItem kept keys unprocessed');
      const result = await this.db.send(
        new BatchGetCommand({
          RequestItems: {
            [this.tableName]: { Keys: pending, ConsistentRead: true, ProjectionExpression: 'pk, sk' },
          },
        }),
      );
      for (const row of result.Responses?.[this.tableName] ?? []) found.add(keyString(row as Key));
      pending = result.UnprocessedKeys?.[this.tableName]?.Keys as Key[] | undefined;
    }
    return found;
  }

  /** Which of `keys` exist: BatchGetItem, 100 keys per request, `parallelism` requests in flight. */
  async existingAll(keys: readonly Key[], parallelism: number): Promise<{ ms: number; found: number }> {
    const started = performance.now();
    let found = 0;
    await inParallel(chunks(keys, 100), parallelism, this.#abort, async (chunk) => {
      found += (await this.existing(chunk)).size;
    });
    return { ms: performance.now() - started, found };
  }

  /** BatchWriteItem puts, 25 per request, `parallelism` requests in flight, unprocessed items sent again. */
  async putAll(rows: readonly Row[], parallelism: number): Promise<WriteStats> {
    const stats = emptyStats(rows.length);
    const started = performance.now();
    await inParallel(chunks(rows, 25), parallelism, this.#abort, async (chunk) => {
      let pending = chunk.map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; pending.length; attempt++) {
        if (attempt > 10) throw new Error('BatchWriteItem kept items unprocessed');
        if (attempt > 0) {
          stats.retries++;
          await sleep(Math.min(1000, 25 * 2 ** attempt));
        }
        stats.requests++;
        const result = await this.db.send(
          new BatchWriteCommand({
            RequestItems: { [this.tableName]: pending },
            ReturnConsumedCapacity: 'TOTAL',
          }),
        );
        stats.units += unitsOf(result.ConsumedCapacity);
        pending = (result.UnprocessedItems?.[this.tableName] ?? []) as typeof pending;
      }
    });
    stats.reportedUnits = stats.units;
    stats.ms = performance.now() - started;
    return stats;
  }

  /**
   * Conditional puts of new items, `perTransaction` per TransactWriteItems, `parallelism` in flight: the
   * shape of the import's id claims.
   */
  async transactPutAll(
    rows: readonly Row[],
    options: { perTransaction: number; parallelism: number; condition: string; values: Row },
  ): Promise<WriteStats> {
    const stats = emptyStats(rows.length);
    const started = performance.now();
    await inParallel(
      chunks(rows, options.perTransaction),
      options.parallelism,
      this.#abort,
      async (chunk) => {
        stats.requests++;
        const result = await this.db.send(
          new TransactWriteCommand({
            TransactItems: chunk.map((Item) => ({
              Put: {
                TableName: this.tableName,
                Item,
                ConditionExpression: options.condition,
                ExpressionAttributeValues: options.values,
              },
            })),
            ReturnConsumedCapacity: 'TOTAL',
          }),
        );
        stats.reportedUnits += unitsOf(result.ConsumedCapacity);
        stats.units += chunk.reduce((total, item) => total + 2 * Math.ceil(itemSize(item) / 1024), 0);
      },
    );
    stats.ms = performance.now() - started;
    return stats;
  }

  /**
   * Puts of new items as PartiQL INSERTs, `perBatch` per BatchExecuteStatement, `parallelism` in flight: the
   * shape of the import's id claims. Units from the items' sizes, 1 per started KB (DynamoDB Local reports
   * none for BatchExecuteStatement); a statement that fails throws.
   */
  async insertAll(
    rows: readonly Row[],
    options: { perBatch: number; parallelism: number },
  ): Promise<WriteStats> {
    const stats = emptyStats(rows.length);
    const started = performance.now();
    await inParallel(chunks(rows, options.perBatch), options.parallelism, this.#abort, async (chunk) => {
      stats.requests++;
      const { Responses = [] } = await this.db.send(
        new BatchExecuteStatementCommand({
          Statements: chunk.map((row) => ({
            Statement: `INSERT INTO "${this.tableName}" VALUE {${Object.keys(row)
              .map((name) => `'${name}': ?`)
              .join(', ')}}`,
            Parameters: Object.values(row),
          })),
        }),
      );
      const failed = Responses.find((response) => response.Error);
      if (failed) throw new Error(`INSERT refused: ${JSON.stringify(failed.Error)}`);
      stats.units += chunk.reduce((total, item) => total + Math.ceil(itemSize(item) / 1024), 0);
    });
    stats.ms = performance.now() - started;
    return stats;
  }

  /**
   * The same conditional puts one PutItem each, `parallelism` in flight: the alternative to transactions
   * for the import's claims (half the write units; a conflict leaves the claims taken so far written).
   */
  async conditionalPutAll(
    rows: readonly Row[],
    options: { parallelism: number; condition: string; values: Row },
  ): Promise<WriteStats> {
    const stats = emptyStats(rows.length);
    const started = performance.now();
    await inParallel(rows, options.parallelism, this.#abort, async (Item) => {
      stats.requests++;
      const result = await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item,
          ConditionExpression: options.condition,
          ExpressionAttributeValues: options.values,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      stats.units += unitsOf(result.ConsumedCapacity);
      stats.reportedUnits = stats.units;
    });
    stats.ms = performance.now() - started;
    return stats;
  }

  /** Every page of a query, in order. */
  async queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<{ rows: Row[]; pages: number }> {
    const rows: Row[] = [];
    let pages = 0;
    let startKey = input.ExclusiveStartKey;
    do {
      const page = await this.db.send(
        new QueryCommand({ ...input, TableName: this.tableName, ExclusiveStartKey: startKey }),
      );
      pages++;
      for (const row of page.Items ?? []) rows.push(row);
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return { rows, pages };
  }

  destroy(): void {
    this.db.destroy();
  }
}

export const keyString = (key: Key) => `${key.pk}\u0000${key.sk}`;

/**
 * The service's inParallel (functions/shared/parallel.ts) over `inputs`; once `abort` fires no input is
 * started any more and the abort reason is thrown.
 */
export async function inParallel<T>(
  inputs: readonly T[],
  parallelism: number,
  abort: AbortSignal | undefined,
  work: (input: T) => Promise<void>,
): Promise<void> {
  await runInParallel(inputs, parallelism, (input) => {
    abort?.throwIfAborted();
    return work(input);
  });
  abort?.throwIfAborted();
}

/**
 * Approximate stored size of an item by DynamoDB's sizing rules: attribute names plus values (strings as
 * UTF-8, numbers about one byte per two significant digits plus one, lists and maps 3 bytes plus 1 per element).
 */
export function itemSize(row: Row): number {
  let size = 0;
  for (const [name, value] of Object.entries(row)) {
    if (value === undefined) continue;
    size += Buffer.byteLength(name, 'utf8') + valueSize(value);
  }
  return size;
}

function valueSize(value: NativeAttributeValue): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') {
    const digits = String(Math.abs(value))
      .replace(/[.-]|e.*$/g, '')
      .replace(/^0+/, '').length;
    return Math.ceil(digits / 2) + 1;
  }
  if (Array.isArray(value)) return 3 + value.reduce((total: number, v) => total + 1 + valueSize(v), 0);
  if (typeof value === 'object')
    return (
      3 +
      Object.entries(value as Record<string, NativeAttributeValue>).reduce(
        (total, [name, v]) =>
          v === undefined ? total : total + 1 + Buffer.byteLength(name, 'utf8') + valueSize(v),
        0,
      )
    );
  return 0;
}
