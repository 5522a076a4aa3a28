import { randomBytes } from 'node:crypto';
import {
  type AttributeValue,
  BatchExecuteStatementCommand,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type ReturnValue,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeClaims } from '../../functions/data/claims';
import { insertItems } from '../../functions/data/client';
import { itemSize } from '../../local/aws-proxy/dynamodb-capacity';
import type { PartitionModel } from '../../local/aws-proxy/dynamodb-partitions';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from '../../local/cloud/model';
import { type Item, item, partitionProbe } from '../support/dynamodb-partitions';
import { startTestApi, type TestApi } from '../support/local-api';

/**
 * The DynamoDB partition model of the local endpoint, on the service's own table (with its two global
 * secondary indexes): what each operation consumes per partition key by AWS's rules, and AWS's
 * per-partition limits enforced with the errors DynamoDB answers, so that the SDK's retries are exercised.
 */

let api: TestApi;
let model: PartitionModel;
/** The operator, with no retries: a throttled call fails the test at once. */
let once: DynamoDBClient;
const run = randomBytes(3).toString('hex');
const key = (name: string) => `${name}-${run}`;

beforeAll(async () => {
  api = await startTestApi('dynamodb-partitions', { pollers: false, partitions: 'enforce' });
  model = api.cloud.proxy.partitions as PartitionModel;
  once = new DynamoDBClient({ maxAttempts: 1 });
});

afterAll(async () => {
  once?.destroy();
  await api?.close();
});

const table = () => api.tableName;
const { usage, exhaust, insert } = partitionProbe(() => model, table);
const tableArn = () => `arn:aws:dynamodb:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:table/${table()}`;

describe('the table', () => {
  it('is made without its stream in a deployment that runs no pipes: nothing would read it', async () => {
    const { Table } = await once.send(new DescribeTableCommand({ TableName: table() }));
    expect(Table?.GlobalSecondaryIndexes).toHaveLength(2);
    expect(Table?.StreamSpecification).toBeUndefined();
    expect(Table?.LatestStreamArn).toBeUndefined();
  });
});

describe('counting', () => {
  it('charges PutItem, UpdateItem and DeleteItem by the larger item before and after, per started KB', async () => {
    const pk = key('write');
    const small = item(pk, 'A', 1500);
    await once.send(new PutItemCommand({ TableName: table(), Item: small }));
    expect(usage(pk).writeUnits).toBe(2);
    const setData = (data: string, returnValues?: ReturnValue) =>
      once.send(
        new UpdateItemCommand({
          TableName: table(),
          Key: { pk: small.pk as AttributeValue, sk: small.sk as AttributeValue },
          UpdateExpression: 'SET #data = :data',
          ExpressionAttributeNames: { '#data': 'data' },
          ExpressionAttributeValues: { ':data': { S: data } },
          ReturnValues: returnValues,
        }),
      );
    const updated = await setData('y'.repeat((small.data?.S?.length ?? 0) + 1000));
    expect(usage(pk).writeUnits).toBe(2 + 3);
    // The meter learns the item after from the answer (ALL_NEW), which the caller, who asked for nothing, never sees.
    expect(updated.Attributes).toBeUndefined();
    // A caller's own ReturnValues is answered as asked (the item after then read apart): 2,500 bytes -> 3 units.
    const shrunk = await setData('z', 'UPDATED_NEW');
    expect(shrunk.Attributes).toEqual({ data: { S: 'z' } });
    expect(usage(pk).writeUnits).toBe(2 + 3 + 3);
    await once.send(new DeleteItemCommand({ TableName: table(), Key: { pk: { S: pk }, sk: { S: 'A' } } }));
    expect(usage(pk).writeUnits).toBe(2 + 3 + 3 + 1);
    // A delete of nothing still costs one.
    await once.send(new DeleteItemCommand({ TableName: table(), Key: { pk: { S: pk }, sk: { S: 'A' } } }));
    expect(usage(pk).writeUnits).toBe(2 + 3 + 3 + 1 + 1);
  });

  it('charges a failed conditional write by the item it found', async () => {
    const pk = key('condition');
    await once.send(new PutItemCommand({ TableName: table(), Item: item(pk, 'A', 5000) }));
    await expect(
      once.send(
        new PutItemCommand({
          TableName: table(),
          Item: item(pk, 'A', 100),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    expect(usage(pk).writeUnits).toBe(5 + 5);
  });

  it('charges GetItem and BatchGetItem per item and started 4 KB, half when eventually consistent', async () => {
    const pk = key('get');
    await once.send(new PutItemCommand({ TableName: table(), Item: item(pk, 'A', 5000) }));
    const itemKey = { pk: { S: pk }, sk: { S: 'A' } };
    await once.send(new GetItemCommand({ TableName: table(), Key: itemKey }));
    expect(usage(pk).readUnits).toBe(1);
    await once.send(new GetItemCommand({ TableName: table(), Key: itemKey, ConsistentRead: true }));
    expect(usage(pk).readUnits).toBe(1 + 2);
    // An item that is not there: the minimum.
    await once.send(new GetItemCommand({ TableName: table(), Key: { pk: { S: pk }, sk: { S: 'none' } } }));
    expect(usage(pk).readUnits).toBe(1 + 2 + 0.5);
    // BatchGetItem item by item, a key that is not there at the minimum, a projection sized on the whole item.
    await once.send(
      new BatchGetItemCommand({
        RequestItems: {
          [table()]: {
            Keys: [itemKey, { pk: { S: pk }, sk: { S: 'none' } }],
            ConsistentRead: true,
            ProjectionExpression: 'sk',
          },
        },
      }),
    );
    expect(usage(pk).readUnits).toBe(1 + 2 + 0.5 + (2 + 1));
  });

  it('charges BatchWriteItem item by item, and a Query page on the sum of what it read, filtered or not', async () => {
    const pk = key('query');
    const items = Array.from({ length: 10 }, (_, i) => item(pk, `R${i}`, 1009));
    items.push(item(pk, 'S', 3.5 * 1024));
    await once.send(
      new BatchWriteItemCommand({
        RequestItems: { [table()]: items.map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
    expect(usage(pk).writeUnits).toBe(10 + 4);
    // 10,090 bytes: 3 units read consistently.
    await once.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :r)',
        ExpressionAttributeValues: { ':pk': { S: pk }, ':r': { S: 'R' } },
        ConsistentRead: true,
      }),
    );
    expect(usage(pk).readUnits).toBe(3);
    // A filter that keeps nothing reads as much (1.5 eventually consistent).
    await once.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :r)',
        FilterExpression: 'attribute_exists(absent_attribute)',
        ExpressionAttributeValues: { ':pk': { S: pk }, ':r': { S: 'R' } },
      }),
    );
    expect(usage(pk).readUnits).toBe(3 + 1.5);
    // A page that reads nothing still costs the minimum.
    const empty = key('empty');
    await once.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': 'pk' },
        ExpressionAttributeValues: { ':pk': { S: empty } },
      }),
    );
    expect(usage(empty).readUnits).toBe(0.5);
  });

  it('relays a read as DynamoDB answers it: the count only to a caller that asked for it', async () => {
    const pk = key('relay');
    await once.send(new PutItemCommand({ TableName: table(), Item: item(pk, 'A', 5000) }));
    const query = {
      TableName: table(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: pk } },
    };
    const plain = await once.send(new QueryCommand({ ...query, ConsistentRead: true }));
    expect(plain.Items?.map((found) => found.sk?.S)).toEqual(['A']);
    expect(plain).not.toHaveProperty('ConsumedCapacity');
    const asked = await once.send(new QueryCommand({ ...query, ReturnConsumedCapacity: 'TOTAL' }));
    expect(asked.ConsumedCapacity).toEqual({ TableName: table(), CapacityUnits: 1 });
    const itemKey = { pk: { S: pk }, sk: { S: 'A' } };
    const got = await once.send(new GetItemCommand({ TableName: table(), Key: itemKey }));
    expect(itemSize(got.Item ?? {})).toBe(5000);
    expect(got).not.toHaveProperty('ConsumedCapacity');
    // An item that is not there: the count was the whole answer.
    const none = await once.send(
      new GetItemCommand({ TableName: table(), Key: { ...itemKey, sk: { S: 'none' } } }),
    );
    expect(none).not.toHaveProperty('Item');
    expect(none).not.toHaveProperty('ConsumedCapacity');
    expect(usage(pk).readUnits).toBe(2 + 1 + 1 + 0.5);
  });

  it("charges a transaction's items twice on the table, and an index's write once on the index's partition", async () => {
    const pk = key('transaction');
    const indexed = key('indexed');
    const gsi1pk = key('G');
    await once.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          ...[1, 2, 3].map((i) => ({ Put: { TableName: table(), Item: item(pk, `T${i}`, 500) } })),
          {
            Put: {
              TableName: table(),
              Item: item(indexed, 'A', 1500, { gsi1pk: { S: gsi1pk }, gsi1sk: { S: 'x' } }),
            },
          },
        ],
      }),
    );
    expect(usage(pk).writeUnits).toBe(6);
    expect(usage(indexed).writeUnits).toBe(4);
    expect(usage(gsi1pk, 'gsi1').writeUnits).toBe(2);
    // Moving the item to another index key: a delete from the old key, an insert at the new one.
    const moved = key('H');
    await once.send(
      new UpdateItemCommand({
        TableName: table(),
        Key: { pk: { S: indexed }, sk: { S: 'A' } },
        UpdateExpression: 'SET gsi1pk = :moved',
        ExpressionAttributeValues: { ':moved': { S: moved } },
      }),
    );
    expect(usage(indexed).writeUnits).toBe(4 + 2);
    expect(usage(gsi1pk, 'gsi1').writeUnits).toBe(2 + 2);
    expect(usage(moved, 'gsi1').writeUnits).toBe(2);
  });
});

const stored = async (pk: string, sk: string) =>
  (
    await once.send(
      new GetItemCommand({ TableName: table(), Key: { pk: { S: pk }, sk: { S: sk } }, ConsistentRead: true }),
    )
  ).Item;

describe('counting PartiQL INSERTs', () => {
  it('charges each INSERT of a batch as a put of a new item, and one that finds its key taken by the larger item', async () => {
    const pk = key('insert');
    const indexed = key('insert-indexed');
    const gsi1pk = key('insert-G');
    const result = await once.send(
      new BatchExecuteStatementCommand({
        Statements: [
          insert(item(pk, 'A', 1500)),
          insert(item(pk, 'B', 500)),
          insert(item(indexed, 'A', 1500, { gsi1pk: { S: gsi1pk }, gsi1sk: { S: 'x' } })),
        ],
      }),
    );
    expect(result.Responses?.map((response) => response.Error)).toEqual([undefined, undefined, undefined]);
    expect(usage(pk).writeUnits).toBe(2 + 1);
    expect(usage(indexed).writeUnits).toBe(2);
    expect(usage(gsi1pk, 'gsi1').writeUnits).toBe(2);
    // DuplicateItem is a failed condition: charged by the larger of the item there and the item sent.
    await once.send(new PutItemCommand({ TableName: table(), Item: item(pk, 'C', 5000) }));
    const duplicates = await once.send(
      new BatchExecuteStatementCommand({
        Statements: [insert(item(pk, 'C', 100)), insert(item(pk, 'A', 3000))],
      }),
    );
    expect(duplicates.Responses?.map((response) => response.Error?.Code)).toEqual([
      'DuplicateItem',
      'DuplicateItem',
    ]);
    expect(usage(pk).writeUnits).toBe(2 + 1 + 5 + 5 + 3);
    expect((await stored(pk, 'C'))?.data?.S?.length).toBeGreaterThan(4000);
  });

  it("charges an import's id claims one write unit each", async () => {
    const accountId = key('acct');
    const claims = Array.from({ length: 30 }, (_, i) => ({ kind: 'ITEM' as const, id: `item-${i}` }));
    await takeClaims(accountId, claims, 'imp_claims', 'route-1');
    const claimPartitions = model
      .report()
      .partitions.filter((p) => p.partitionKey.startsWith(`CLAIM#${accountId}/`));
    expect(claimPartitions).toHaveLength(30);
    expect(claimPartitions.every((p) => p.writeUnits === 1)).toBe(true);
  });
});

describe('per-partition limits', () => {
  /** `count` puts of 200 KB (200 write units each) at once, to `keys(i)`. */
  const burst = (client: DynamoDBClient, count: number, keyOf: (i: number) => string) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        client.send(new PutItemCommand({ TableName: table(), Item: item(keyOf(i), `B${i}`, 200 * 1024) })),
      ),
    );

  it("throttles a burst past 1,000 write units a second on one key, and the SDK's retries get every write through", async () => {
    const pk = key('hot');
    const patient = new DynamoDBClient({ maxAttempts: 50 });
    try {
      // 4,800 units at once: past a second's burst and more than a second's refill.
      await burst(patient, 24, () => pk);
    } finally {
      patient.destroy();
    }
    const hot = usage(pk);
    expect(hot.throttledWrites).toBeGreaterThan(0);
    expect(hot.writeUnits).toBe(24 * 200);
    // Every write is stored (a Query page stops at 1 MB: pages until the last).
    let stored = 0;
    let startKey: Item | undefined;
    do {
      const page = await once.send(
        new QueryCommand({
          TableName: table(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: pk } },
          ProjectionExpression: 'sk',
          ExclusiveStartKey: startKey,
        }),
      );
      stored += page.Count ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    expect(stored).toBe(24);
  });

  it('does not throttle the same writes spread over keys', async () => {
    await burst(once, 24, (i) => key(`spread${i}`));
    for (let i = 0; i < 24; i++)
      expect(usage(key(`spread${i}`))).toMatchObject({ writeUnits: 200, throttledWrites: 0 });
  });

  it('answers a hot key with ThrottlingException and its reason, which the SDK retries', async () => {
    const pk = key('exhausted');
    exhaust(pk, 'write');
    const error = await once
      .send(new PutItemCommand({ TableName: table(), Item: item(pk, 'A', 100) }))
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      name: 'ThrottlingException',
      message: expect.stringContaining('Throughput exceeds the current capacity of your table or index'),
      throttlingReasons: [{ reason: 'TableWriteKeyRangeThroughputExceeded', resource: tableArn() }],
      $metadata: { httpStatusCode: 400, attempts: 1 },
    });
    const retrying = new DynamoDBClient({ maxAttempts: 3 });
    try {
      await expect(
        retrying.send(new PutItemCommand({ TableName: table(), Item: item(pk, 'A', 100) })),
      ).rejects.toMatchObject({ name: 'ThrottlingException', $metadata: { attempts: 3 } });
    } finally {
      retrying.destroy();
    }
    expect(usage(pk).throttledWrites).toBe(4);
  });

  it('throttles reads of a key past 3,000 read units a second on their own bucket', async () => {
    const pk = key('read-hot');
    await once.send(new PutItemCommand({ TableName: table(), Item: item(pk, 'A', 100) }));
    exhaust(pk, 'read');
    await expect(
      once.send(new GetItemCommand({ TableName: table(), Key: { pk: { S: pk }, sk: { S: 'A' } } })),
    ).rejects.toMatchObject({
      name: 'ThrottlingException',
      throttlingReasons: [{ reason: 'TableReadKeyRangeThroughputExceeded', resource: tableArn() }],
    });
    await expect(
      once.send(
        new QueryCommand({
          TableName: table(),
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': { S: pk } },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ThrottlingException' });
    // Writes to the key are not held back by its reads.
    await once.send(new PutItemCommand({ TableName: table(), Item: item(pk, 'B', 100) }));
  });

  it("leaves a hot key's BatchWriteItem items unprocessed, and throttles a batch with nothing else", async () => {
    const hot = key('batch-hot');
    const cold = key('batch-cold');
    exhaust(hot, 'write');
    const mixed = [item(hot, 'A', 100), item(cold, 'A', 100), item(hot, 'B', 100), item(cold, 'B', 100)];
    const result = await once.send(
      new BatchWriteItemCommand({
        RequestItems: { [table()]: mixed.map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
    expect(result.UnprocessedItems?.[table()]).toEqual([
      { PutRequest: { Item: mixed[0] } },
      { PutRequest: { Item: mixed[2] } },
    ]);
    expect(usage(cold).writeUnits).toBe(2);
    expect(usage(hot)).toMatchObject({ writeUnits: 0, throttledWrites: 2 });
    await expect(
      once.send(
        new BatchWriteItemCommand({
          RequestItems: { [table()]: [{ PutRequest: { Item: item(hot, 'C', 100) } }] },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ThrottlingException' });
  });

  it('cancels a transaction with a ThrottlingError reason for its items on a hot key', async () => {
    const hot = key('tx-hot');
    const cold = key('tx-cold');
    exhaust(hot, 'write');
    const error = await once
      .send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: table(), Item: item(cold, 'A', 100) } },
            { Put: { TableName: table(), Item: item(hot, 'A', 100) } },
          ],
        }),
      )
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      name: 'TransactionCanceledException',
      message:
        'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ThrottlingError]',
      CancellationReasons: [
        { Code: 'None' },
        { Code: 'ThrottlingError', Message: expect.stringContaining('check if you have a hot key') },
      ],
    });
    const written = await once.send(
      new GetItemCommand({
        TableName: table(),
        Key: { pk: { S: cold }, sk: { S: 'A' } },
        ConsistentRead: true,
      }),
    );
    expect(written.Item).toBeUndefined();
  });

  it("answers a hot key's INSERT with a ThrottlingError for that statement only, as DynamoDB answers it", async () => {
    const hot = key('insert-hot');
    const cold = key('insert-cold');
    exhaust(hot, 'write');
    const result = await once.send(
      new BatchExecuteStatementCommand({
        Statements: [insert(item(cold, 'A', 100)), insert(item(hot, 'A', 100)), insert(item(cold, 'B', 100))],
      }),
    );
    expect(result.Responses).toEqual([
      { TableName: table() },
      {
        TableName: table(),
        Error: { Code: 'ThrottlingError', Message: expect.stringContaining('check if you have a hot key') },
      },
      { TableName: table() },
    ]);
    expect(await stored(cold, 'A')).toBeDefined();
    expect(await stored(hot, 'A')).toBeUndefined();
    expect(usage(cold).writeUnits).toBe(2);
    expect(usage(hot)).toMatchObject({ writeUnits: 0, throttledWrites: 1 });
    // Nothing of the batch let in: still answered statement by statement.
    const none = await once.send(
      new BatchExecuteStatementCommand({ Statements: [insert(item(hot, 'B', 100))] }),
    );
    expect(none.Responses?.[0]?.Error?.Code).toBe('ThrottlingError');
  });

  it('sends a throttled INSERT again until its key has capacity (insertItems)', async () => {
    const busy = key('insert-busy');
    // Half a second of the key's writes owed: refused at first, let in once the bucket refills.
    expect(
      'admission' in model.admit([{ table: table(), partitionKey: busy, access: 'write', units: 1500 }]),
    ).toBe(true);
    const items = [
      { pk: busy, sk: 'A', data: 'x' },
      { pk: key('insert-free'), sk: 'A', data: 'y' },
    ];
    expect(await insertItems(items)).toEqual([]);
    expect(await stored(busy, 'A')).toBeDefined();
    expect(usage(busy)).toMatchObject({ writeUnits: 1 });
    expect(usage(busy).throttledWrites).toBeGreaterThan(0);
    expect(await insertItems(items)).toEqual(items);
  });

  it("throttles a write on a hot index partition with the index's reason and message", async () => {
    const gsi1pk = key('index-hot');
    exhaust(gsi1pk, 'write', 'gsi1');
    await expect(
      once.send(
        new PutItemCommand({
          TableName: table(),
          Item: item(key('index-item'), 'A', 100, { gsi1pk: { S: gsi1pk }, gsi1sk: { S: 'x' } }),
        }),
      ),
    ).rejects.toMatchObject({
      name: 'ThrottlingException',
      message: expect.stringContaining('one or more global secondary indexes'),
      throttlingReasons: [
        { reason: 'IndexWriteKeyRangeThroughputExceeded', resource: `${tableArn()}/index/gsi1` },
      ],
    });
  });
});
