/**
 * Metering of DynamoDB's data-plane calls through the proxy for the partition model (dynamodb-partitions.ts):
 * what each call consumes on which partition key, by AWS's rules (dynamodb-capacity.ts), and, when the model
 * enforces the per-partition limits, the throttling answers DynamoDB gives.
 *
 * Where the units come from. DynamoDB Local's own ConsumedCapacity (10.3.0) was compared with AWS's rules
 * and is used only where it agrees with them: GetItem, Query and Scan (sized on the items read, before a
 * filter or projection; a Query page that reads nothing is raised to AWS's minimum of one unit, where
 * DynamoDB Local says 0). It is wrong elsewhere: 2 units per transaction item whatever its size, 0 for a
 * BatchGetItem key that is not there, 2 for a BatchWriteItem delete of nothing; and no count reaches the
 * caller of a failed conditional write. So writes, batches and transactions are sized here from the items
 * before and after the write: the proxy reads the items a write names (BatchGetItem, consistent, straight
 * from DynamoDB Local) before forwarding it, and the items an update changed after it (an UpdateItem whose
 * caller asks for no values gets its item back with the answer instead, ALL_NEW, left out of what the caller
 * sees). Two approximations,
 * both of which can only add units: a write to the same item by another caller between that read and the
 * write shifts the sizes compared, and a failed conditional write or a cancelled transaction is charged as
 * the larger of the item there and the item sent (AWS charges a failed condition by the item's size, and
 * reports nothing for a cancelled transaction).
 *
 * PartiQL: a BatchExecuteStatement of INSERTs (the one statement the local runtime reads, local/iam/partiql.ts)
 * is metered statement by statement as a put conditional on the item not existing: its item's size, counted
 * when it fails with DuplicateItem too (AWS charges a failed condition), then as the larger of the item there
 * and the item sent. Only those items are read, after the call: one that succeeded had nothing before it. Other PartiQL (ExecuteStatement,
 * ExecuteTransaction, other statements) is not metered: the service sends none, and the proxy refuses it to
 * the functions' roles. Scans are counted per table, not per partition, and never throttled (a Scan reads
 * every partition).
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LOCAL_REGION } from '../cloud/model';
import { batchInserts } from '../iam/partiql';
import { LOCAL_CREDENTIALS, withoutSdkLogging } from '../services';
import type { Item, TableSchema } from './dynamodb-capacity';
import { tableWriteUnits } from './dynamodb-capacity';
import {
  askedForCapacity,
  itemId,
  type Key,
  partitionCharge,
  plainTableName,
  reportedUnits,
  shownCapacity,
  trailingCapacity,
  withReportedCapacity,
  writeCharges,
} from './dynamodb-charges';
import { type Answer, Exchange, type Json } from './dynamodb-exchange';
import { meteredOperations } from './dynamodb-metered-operations';
import { type Charge, PartitionModel } from './dynamodb-partitions';
import type { SignedCall } from './principals';
import { readBody, Upstream } from './upstream';

const OPERATION = 'DynamoDB_20120810.';

/**
 * The meter's reads go to DynamoDB Local as AWS JSON without the SDK: one or two per metered write, and the
 * SDK's serializing, signing and retrying took about a fifth of the local endpoint's CPU under the webhook
 * bench's load. DynamoDB Local (`-sharedDb`) reads the region of the credential scope, not the signature.
 */
const READER_HEADERS = {
  'content-type': 'application/x-amz-json-1.0',
  'x-amz-target': `${OPERATION}BatchGetItem`,
  authorization: `AWS4-HMAC-SHA256 Credential=local/20260101/${LOCAL_REGION}/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
};

export class CapacityMeter {
  readonly model: PartitionModel;
  private readonly reader: DynamoDBClient;
  private readonly items: Upstream;
  private readonly schemas = new Map<string, Promise<TableSchema>>();

  constructor(options: { dynamodbEndpoint: string; enforce: boolean }) {
    this.model = new PartitionModel(options.enforce);
    this.items = new Upstream(options.dynamodbEndpoint);
    this.reader = withoutSdkLogging(
      new DynamoDBClient({
        endpoint: options.dynamodbEndpoint,
        region: LOCAL_REGION,
        credentials: LOCAL_CREDENTIALS,
      }),
    );
  }

  close(): void {
    this.reader.destroy();
    this.items.close();
  }

  /** The key schema and indexes of a table, read once (forgotten when the table changes). */
  private schema(table: string): Promise<TableSchema> {
    let found = this.schemas.get(table);
    if (!found) {
      found = this.reader.send(new DescribeTableCommand({ TableName: table })).then(({ Table }) => {
        const keyOf = (schema: { AttributeName?: string; KeyType?: string }[] | undefined, type: string) =>
          schema?.find((element) => element.KeyType === type)?.AttributeName;
        return {
          name: table,
          partitionKey: keyOf(Table?.KeySchema, 'HASH') as string,
          sortKey: keyOf(Table?.KeySchema, 'RANGE'),
          onDemand: Table?.BillingModeSummary?.BillingMode === 'PAY_PER_REQUEST',
          indexes: (Table?.GlobalSecondaryIndexes ?? []).map((index) => ({
            name: index.IndexName as string,
            partitionKey: keyOf(index.KeySchema, 'HASH') as string,
            sortKey: keyOf(index.KeySchema, 'RANGE'),
            projection: (index.Projection?.ProjectionType ?? 'ALL') as 'ALL' | 'KEYS_ONLY' | 'INCLUDE',
            include: index.Projection?.NonKeyAttributes ?? [],
          })),
        };
      });
      found.catch(() => this.schemas.delete(table));
      this.schemas.set(table, found);
    }
    return found;
  }

  /**
   * Answers a data-plane call itself, metered (true), or leaves it to the caller (false: control-plane and
   * stream calls, PartiQL, and calls naming a table DynamoDB Local does not know, which it then refuses).
   */
  async handle(
    call: SignedCall,
    upstream: Upstream,
    target: string,
    input: Json,
    body: Buffer,
  ): Promise<boolean> {
    if (!target.startsWith(OPERATION)) return false;
    const operation = target.slice(OPERATION.length);
    if (['CreateTable', 'DeleteTable', 'UpdateTable'].includes(operation))
      this.schemas.delete(plainTableName(input.TableName));
    const run = this.operations[operation];
    if (!run) return false;
    let tables: Map<string, TableSchema>;
    try {
      tables = await this.schemasOf(operation, input);
    } catch {
      return false;
    }
    const exchange = new Exchange(call, upstream, body, tables);
    await run.call(this, exchange, input);
    return true;
  }

  private async schemasOf(operation: string, input: Json): Promise<Map<string, TableSchema>> {
    const names = new Set<string>();
    if (operation === 'BatchExecuteStatement')
      for (const insert of batchInserts(input) ?? []) {
        if (!insert) throw new Error('not a statement the partition model reads');
        names.add(insert.table);
      }
    else if (operation.startsWith('Batch'))
      for (const name of Object.keys(input.RequestItems ?? {})) names.add(name);
    else if (operation.startsWith('Transact'))
      for (const action of (input.TransactItems ?? []) as Json[])
        for (const detail of Object.values(action)) names.add(String((detail as Json).TableName));
    else names.add(String(input.TableName));
    const tables = new Map<string, TableSchema>();
    for (const name of names) tables.set(name, await this.schema(plainTableName(name)));
    return tables;
  }

  /** The items at `keys` now (absent ones missing from the map), read consistently past the model. */
  async currentItems(keys: readonly { table: TableSchema; key: Key }[]): Promise<Map<string, Item>> {
    const found = new Map<string, Item>();
    const unique = new Map(keys.map((entry) => [itemId(entry.table, entry.key), entry]));
    const pending = [...unique.values()];
    while (pending.length) {
      const chunk = pending.splice(0, 100);
      let request: Record<string, { Keys: Key[]; ConsistentRead: boolean }> | undefined = {};
      for (const { table, key } of chunk) {
        request[table.name] ??= { Keys: [], ConsistentRead: true };
        request[table.name]?.Keys.push(key);
      }
      while (request && Object.keys(request).length) {
        const result = await this.batchGet(request);
        for (const [name, items] of Object.entries(result.Responses ?? {})) {
          const table = chunk.find((entry) => entry.table.name === name)?.table as TableSchema;
          for (const item of items) found.set(itemId(table, item), item);
        }
        request = result.UnprocessedKeys;
      }
    }
    return found;
  }

  private async batchGet(request: Record<string, { Keys: Key[]; ConsistentRead: boolean }>): Promise<{
    Responses?: Record<string, Item[]>;
    UnprocessedKeys?: Record<string, { Keys: Key[]; ConsistentRead: boolean }>;
  }> {
    const response = await this.items.send(
      'POST',
      '/',
      READER_HEADERS,
      Buffer.from(JSON.stringify({ RequestItems: request })),
    );
    const body = JSON.parse((await readBody(response)).toString('utf8'));
    if (response.statusCode !== 200)
      throw new Error(`DynamoDB Local refused the meter's read: ${body.__type}: ${body.message}`);
    return body;
  }

  private readonly operations = meteredOperations;

  /**
   * A PutItem, UpdateItem or DeleteItem: let in on the partitions of the item before and (when known) after,
   * forwarded, and charged by the item before and after; a failed condition by the larger of the item there
   * and the one sent.
   */
  async singleWrite(
    x: Exchange,
    table: TableSchema,
    key: Key,
    before: Item | undefined,
    expectedAfter: Item | undefined,
    actualAfter: (answer: Answer) => Promise<Item | undefined>,
    /** The call forwarded as `input`, and a successful answer shown to the caller as `shown` makes it. */
    changed?: { input: Json; shown: (answer: Answer) => Json },
  ): Promise<void> {
    const result = this.model.admit(writeCharges(table, key, before, expectedAfter));
    if ('refusedBy' in result) return x.throttled(table, result.refusedBy);
    let consumed: Charge[] = [];
    try {
      const answer = await x.forward(changed?.input);
      if (answer.status === 200) consumed = writeCharges(table, key, before, await actualAfter(answer));
      else if (answer.error === 'ConditionalCheckFailedException')
        consumed = [partitionCharge(table, key, 'write', tableWriteUnits(before, expectedAfter))];
      x.reply(answer, changed && answer.status === 200 ? changed.shown(answer) : undefined);
    } finally {
      this.model.settle(result.admission, consumed);
    }
  }

  /** A GetItem or Query: let in on its partition, charged what DynamoDB Local reports (at least `minimum`). */
  async reportedRead(x: Exchange, input: Json, table: TableSchema, minimum: Charge): Promise<void> {
    const result = this.model.admit([minimum]);
    if ('refusedBy' in result) return x.throttled(table, result.refusedBy);
    let consumed: Charge[] = [];
    try {
      const answer = await x.forward(withReportedCapacity(input));
      const trailing = answer.status === 200 ? trailingCapacity(answer.raw) : undefined;
      if (answer.status === 200) {
        const units = trailing ? trailing.units : reportedUnits(answer.body);
        consumed = [{ ...minimum, units: Math.max(minimum.units, units) }];
      }
      if (trailing && !askedForCapacity(input))
        x.reply(answer, Buffer.concat([answer.raw.subarray(0, trailing.at), Buffer.from('}')]));
      else x.reply(answer, shownCapacity(input, answer.body));
    } finally {
      this.model.settle(result.admission, consumed);
    }
  }
}
