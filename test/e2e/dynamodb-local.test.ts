import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { afterAll, describe, expect, it } from 'vitest';
import { TABLE_SCHEMA } from '../../functions/data/table-schema';
import {
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  type RunningDynamoDbLocal,
  startDynamoDbLocal,
} from '../../local/services';

/**
 * DynamoDB Local as every local run starts it (local/services.ts): its writes keep their speed as stream records
 * accumulate. Unindexed, each write to a table scans the records of every stream older than the table's own
 * (docs/local-runtime.md, "DynamoDB Local's stream records"), so a table made after 50,000 records of another
 * stream wrote 3,000 items many times slower than on a fresh database.
 */

const { partitionKey, sortKey, indexes } = TABLE_SCHEMA;
const BATCH = 3000;
const STREAM_RECORDS = 50_000;
/**
 * Quiet, the 50,000 records take DynamoDB Local about a minute of one core and the batches seconds each; a
 * machine running several other test processes took ten minutes. The deadline only ends a hung run: the check
 * is the ratio of CPU times.
 */
const DEADLINE_MS = 1_800_000;
const running: RunningDynamoDbLocal[] = [];
const scratch: string[] = [];

afterAll(async () => {
  await Promise.all(running.map((db) => db.stop()));
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

async function start(dataDir?: string) {
  const db = await startDynamoDbLocal({ dataDir });
  running.push(db);
  const client = new DynamoDBClient({
    endpoint: db.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  return { db, client };
}

/** A table shaped as the service's: its keys, both indexes and a stream of new images. */
async function createTable(client: DynamoDBClient, name: string, stream = true): Promise<void> {
  const attributes = [
    partitionKey,
    sortKey,
    ...Object.values(indexes).flatMap((index) => Object.values(index)),
  ];
  await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: attributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: Object.entries(indexes).map(([name, index]) => ({
        IndexName: name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      ...(stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } } : {}),
    }),
  );
}

function item(prefix: string, n: number) {
  return {
    [partitionKey]: { S: `${prefix}#${n % 50}` },
    [sortKey]: { S: `${prefix}#${n}` },
    [indexes.gsi1.partitionKey]: { S: `${prefix}#${n % 7}` },
    [indexes.gsi1.sortKey]: { S: String(n) },
    data: { S: 'x'.repeat(200) },
  };
}

/** `count` items in chunks of `size`, `inFlight` calls at a time. */
async function inChunks(
  count: number,
  size: number,
  inFlight: number,
  write: (from: number, to: number) => Promise<unknown>,
) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const from = next;
      next = Math.min(count, next + size);
      await write(from, next);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

/** The batch of the issue: 3,000 puts in 100-item transactions, 4 in flight (as the route import claims ids). */
function putBatch(client: DynamoDBClient, table: string, prefix: string) {
  return inChunks(BATCH, 100, 4, (from, to) =>
    client.send(
      new TransactWriteItemsCommand({
        TransactItems: Array.from({ length: to - from }, (_, i) => ({
          Put: { TableName: table, Item: item(prefix, from + i) },
        })),
      }),
    ),
  );
}

function putItems(client: DynamoDBClient, table: string, prefix: string) {
  return client.send(
    new BatchWriteItemCommand({
      RequestItems: {
        [table]: Array.from({ length: 25 }, (_, i) => ({ PutRequest: { Item: item(prefix, i) } })),
      },
    }),
  );
}

/**
 * `reads` GetRecords of the table's stream at its end, where they find nothing, as a local pipe's reads of a quiet
 * stream do: each looks its shard's first record up (docs/local-runtime.md, "DynamoDB Local's stream records").
 */
async function emptyStreamReads(
  db: RunningDynamoDbLocal,
  client: DynamoDBClient,
  table: string,
  reads: number,
) {
  const streams = new DynamoDBStreamsClient({
    endpoint: db.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  const { Table } = await client.send(new DescribeTableCommand({ TableName: table }));
  const StreamArn = Table?.LatestStreamArn as string;
  const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn }));
  const ShardId = StreamDescription?.Shards?.at(-1)?.ShardId as string;
  let { ShardIterator } = await streams.send(
    new GetShardIteratorCommand({ StreamArn, ShardId, ShardIteratorType: 'LATEST' }),
  );
  const seconds = await jvmSeconds(db, async () => {
    for (let read = 0; read < reads; read++)
      ({ NextShardIterator: ShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator })));
  });
  streams.destroy();
  return seconds;
}

function streamRecords(client: DynamoDBClient, table: string, count: number) {
  return inChunks(count, 25, 4, (from, to) =>
    client.send(
      new BatchWriteItemCommand({
        RequestItems: {
          [table]: Array.from({ length: to - from }, (_, i) => ({
            PutRequest: { Item: item('fill', from + i) },
          })),
        },
      }),
    ),
  );
}

const CLOCK_TICKS = existsSync('/proc/self/stat') ? Number(execFileSync('getconf', ['CLK_TCK'])) : 0;

/**
 * The seconds the work took the JVM: its CPU time where /proc gives it (Linux), which a busy machine moves far
 * less than the wall time it falls back to elsewhere.
 */
async function jvmSeconds(db: RunningDynamoDbLocal, work: () => Promise<unknown>): Promise<number> {
  const cpu = () => {
    const fields = readFileSync(`/proc/${db.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  };
  const now = () => (CLOCK_TICKS ? cpu() : performance.now() / 1000);
  const before = now();
  await work();
  return now() - before;
}

describe('DynamoDB Local', () => {
  it(
    'writes the same 3,000-item batch, and reads a stream, as fast after 50,000 stream records as on a fresh database',
    async () => {
      const { db, client } = await start();
      // The JVM compiles its hot paths during its first writes: warm it on a table without a stream.
      await createTable(client, 'warm-up', false);
      await putBatch(client, 'warm-up', 'warm');
      /** The median of the batch into each table: one batch's CPU time moves by a fifth on a busy machine. */
      const batches = async (tables: string[], prefix: string) => {
        const seconds: number[] = [];
        for (const [index, table] of tables.entries())
          seconds.push(await jvmSeconds(db, () => putBatch(client, table, `${prefix}-${index}`)));
        return seconds.sort((a, b) => a - b)[1] as number;
      };

      const freshTables = ['fresh-1', 'fresh-2', 'fresh-3'];
      for (const table of freshTables) await createTable(client, table);
      const fresh = await batches(freshTables, 'first');

      await createTable(client, 'filled');
      await streamRecords(client, 'filled', STREAM_RECORDS);
      const laterTables = ['made-after-1', 'made-after-2', 'made-after-3'];
      for (const table of laterTables) await createTable(client, table);
      const madeAfter = await batches(laterTables, 'after');
      const filled = await batches(['filled', 'filled', 'filled'], 'more');
      // Reading a stream made after the records costs what reading the first stream does.
      const readsFresh = await emptyStreamReads(db, client, 'fresh-1', 300);
      const readsMadeAfter = await emptyStreamReads(db, client, 'made-after-1', 300);

      // Tables made after the records (the path that slowed down) and the table holding them, each against the
      // fresh database's batches.
      expect(madeAfter / fresh, 'tables made after the records').toBeLessThanOrEqual(1.5);
      expect(filled / fresh, 'the table holding the records').toBeLessThanOrEqual(1.5);
      // Unindexed, each of these reads walked the 50,000 records: seconds of CPU against hundredths.
      expect(readsMadeAfter, 'GetRecords of a stream made after the records').toBeLessThanOrEqual(
        Math.max(3 * readsFresh, 0.5),
      );
      client.destroy();
    },
    DEADLINE_MS,
  );

  it(
    'keeps a persistent database, stream records indexed, across restarts',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'drs-dynamodb-local-test-'));
      scratch.push(dataDir);
      const first = await start(dataDir);
      await createTable(first.client, 'kept');
      await putItems(first.client, 'kept', 'before');
      first.client.destroy();
      await first.db.stop();

      const second = await start(dataDir);
      await putItems(second.client, 'kept', 'after');
      const read = (prefix: string) =>
        second.client.send(
          new GetItemCommand({
            TableName: 'kept',
            Key: { [partitionKey]: { S: `${prefix}#0` }, [sortKey]: { S: `${prefix}#0` } },
          }),
        );
      expect((await read('before')).Item?.data?.S).toHaveLength(200);
      expect((await read('after')).Item?.data?.S).toHaveLength(200);
      second.client.destroy();
      // The indexes that keep writes and stream reads flat are in the kept database (local/services.ts).
      const { DatabaseSync } = await import('node:sqlite');
      const file = new DatabaseSync(join(dataDir, 'shared-local-instance.db'), { readOnly: true });
      const found = file
        .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'us'")
        .all();
      file.close();
      expect(found.map((row) => row.sql)).toContainEqual(expect.stringMatching(/ON us \(StreamID\)/));
      expect(found.map((row) => row.sql)).toContainEqual(expect.stringMatching(/ON us \(ShardID\)/));
    },
    DEADLINE_MS / 2,
  );
});
