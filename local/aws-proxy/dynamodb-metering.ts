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
 * from DynamoDB Local) before forwarding it, and the items an update changed after it. Two approximations,
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
import type { IncomingMessage } from 'node:http';
import { crc32 } from 'node:zlib';
import { BatchGetItemCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LOCAL_REGION } from '../cloud/model';
import { batchInserts } from '../iam/partiql';
import { LOCAL_CREDENTIALS, withoutSdkLogging } from '../services';
import {
  type Item,
  indexWrites,
  itemSize,
  keyText,
  type ReadMode,
  readUnits,
  type TableSchema,
  tableWriteUnits,
} from './dynamodb-capacity';
import { type Admission, type Charge, PartitionModel } from './dynamodb-partitions';
import type { SignedCall } from './principals';
import { endToEndHeaders, readBody, replyWith, sendJson, type Upstream } from './upstream';

const OPERATION = 'DynamoDB_20120810.';

/** The messages DynamoDB throttles with (on-demand: seen in live errors and in the API reference's list of cancellation reasons). */
const HOT_KEY_MESSAGE =
  'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html';
const HOT_INDEX_MESSAGE =
  'Throughput exceeds the current capacity for one or more global secondary indexes. DynamoDB is automatically scaling your index so please try again shortly.';
const PROVISIONED_TABLE_MESSAGE =
  'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.';
const PROVISIONED_INDEX_MESSAGE =
  'The level of configured provisioned throughput for one or more global secondary indexes of the table was exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with the UpdateTable API.';

type Json = Record<string, unknown>;
type Key = Item;

interface Answer {
  response: IncomingMessage;
  status: number;
  raw: Buffer;
  body: Json;
  /** The error's name (`ConditionalCheckFailedException`), when the call failed. */
  error?: string;
}

/** A table's name, from a TableName that may be the table's ARN. */
const plainTableName = (name: unknown) =>
  String(name ?? '').replace(/^arn:[^:]*:dynamodb:[^:]*:[^:]*:table\//, '');

export class CapacityMeter {
  readonly model: PartitionModel;
  private readonly reader: DynamoDBClient;
  private readonly schemas = new Map<string, Promise<TableSchema>>();

  constructor(options: { dynamodbEndpoint: string; enforce: boolean }) {
    this.model = new PartitionModel(options.enforce);
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
  private async currentItems(keys: readonly { table: TableSchema; key: Key }[]): Promise<Map<string, Item>> {
    const found = new Map<string, Item>();
    const unique = new Map(keys.map((entry) => [itemId(entry.table, entry.key), entry]));
    const pending = [...unique.values()];
    while (pending.length) {
      const chunk = pending.splice(0, 100);
      let request: Record<string, { Keys: Key[]; ConsistentRead: boolean }> | undefined = {};
      for (const { table, key } of chunk) {
        request[table.name] ??= { Keys: [], ConsistentRead: true };
        request[table.name]?.Keys.push(sdkKey(key));
      }
      while (request && Object.keys(request).length) {
        const result = await this.reader.send(new BatchGetItemCommand({ RequestItems: request as never }));
        for (const [name, items] of Object.entries(result.Responses ?? {})) {
          const table = chunk.find((entry) => entry.table.name === name)?.table as TableSchema;
          for (const item of items) found.set(itemId(table, item as Item), item as Item);
        }
        request = result.UnprocessedKeys as typeof request;
      }
    }
    return found;
  }

  private readonly operations: Record<
    string,
    (this: CapacityMeter, x: Exchange, input: Json) => Promise<void>
  > = {
    async PutItem(x, input) {
      const table = x.table(input.TableName);
      const after = input.Item as Item;
      const key = keyOf(table, after);
      const before = (await this.currentItems([{ table, key }])).get(itemId(table, key));
      await this.singleWrite(x, table, key, before, after, async () => after);
    },

    async UpdateItem(x, input) {
      const table = x.table(input.TableName);
      const key = input.Key as Key;
      const before = (await this.currentItems([{ table, key }])).get(itemId(table, key));
      await this.singleWrite(x, table, key, before, before, async () =>
        (await this.currentItems([{ table, key }])).get(itemId(table, key)),
      );
    },

    async DeleteItem(x, input) {
      const table = x.table(input.TableName);
      const key = input.Key as Key;
      const before = (await this.currentItems([{ table, key }])).get(itemId(table, key));
      await this.singleWrite(x, table, key, before, undefined, async () => undefined);
    },

    async GetItem(x, input) {
      const table = x.table(input.TableName);
      const mode: ReadMode = input.ConsistentRead === true ? 'strong' : 'eventual';
      const partition = {
        table: table.name,
        partitionKey: keyText((input.Key as Key)[table.partitionKey]) ?? '',
      };
      await this.reportedRead(x, input, table, { ...partition, access: 'read', units: readUnits(0, mode) });
    },

    async Query(x, input) {
      const table = x.table(input.TableName);
      const index = table.indexes.find((candidate) => candidate.name === input.IndexName);
      const mode: ReadMode = input.ConsistentRead === true ? 'strong' : 'eventual';
      const partitionKey = queryPartitionKey(input, index ? index.partitionKey : table.partitionKey);
      const charge: Charge = {
        table: table.name,
        index: index?.name,
        partitionKey: partitionKey ?? '',
        access: 'read',
        units: readUnits(0, mode),
      };
      await this.reportedRead(x, input, table, charge);
    },

    async Scan(x, input) {
      const table = x.table(input.TableName);
      const answer = await x.forward(withReportedCapacity(input));
      if (answer.status === 200) this.model.recordScan(table.name, reportedUnits(answer.body));
      x.reply(answer, shownCapacity(input, answer.body));
    },

    async BatchGetItem(x, input) {
      const requestItems = input.RequestItems as Record<string, Json & { Keys: Key[] }>;
      const admitted: Record<string, Json & { Keys: Key[] }> = {};
      const refused: Record<string, Json & { Keys: Key[] }> = {};
      const admissions: {
        table: TableSchema;
        key: Key;
        mode: ReadMode;
        projected: boolean;
        admission: Admission;
      }[] = [];
      let firstRefusal: { table: TableSchema; charge: Charge } | undefined;
      for (const [name, request] of Object.entries(requestItems)) {
        const table = x.table(name);
        const mode: ReadMode = request.ConsistentRead === true ? 'strong' : 'eventual';
        for (const key of request.Keys) {
          const charge = partitionCharge(table, key, 'read', readUnits(0, mode));
          const result = this.model.admit([charge]);
          const target = 'admission' in result ? admitted : refused;
          target[name] ??= { ...request, Keys: [] };
          target[name].Keys.push(key);
          if ('admission' in result)
            admissions.push({
              table,
              key,
              mode,
              projected: isProjected(request),
              admission: result.admission,
            });
          else firstRefusal ??= { table, charge };
        }
      }
      if (firstRefusal && admissions.length === 0)
        return x.throttled(firstRefusal.table, firstRefusal.charge);
      const consumed = new Map<Admission, Charge[]>();
      try {
        const answer = await x.forward(firstRefusal ? { ...input, RequestItems: admitted } : input);
        if (answer.status === 200) {
          const responses = (answer.body.Responses ?? {}) as Record<string, Item[]>;
          const unprocessed = (answer.body.UnprocessedKeys ?? {}) as Record<string, { Keys: Key[] }>;
          // A projection hides what was read: those items are read and sized whole.
          const projected = admissions.filter((entry) => entry.projected);
          const whole = projected.length ? await this.currentItems(projected) : new Map<string, Item>();
          const returned = new Map<string, Item>();
          for (const [name, items] of Object.entries(responses))
            for (const item of items) returned.set(itemId(x.table(name), item), item);
          const left = new Set(
            Object.entries(unprocessed).flatMap(([name, { Keys }]) =>
              Keys.map((key) => itemId(x.table(name), key)),
            ),
          );
          for (const { table, key, mode, projected: isPartial, admission } of admissions) {
            const id = itemId(table, key);
            if (left.has(id)) continue;
            // A projection may leave out the key itself: such items are found by the whole read.
            const item = isPartial ? whole.get(id) : returned.get(id);
            consumed.set(admission, [
              partitionCharge(table, key, 'read', readUnits(item ? itemSize(item) : 0, mode)),
            ]);
          }
          if (firstRefusal) {
            for (const [name, request] of Object.entries(refused)) {
              const keys = [...(unprocessed[name]?.Keys ?? []), ...request.Keys];
              unprocessed[name] = { ...request, ...unprocessed[name], Keys: keys };
            }
            return x.reply(answer, { ...answer.body, UnprocessedKeys: unprocessed });
          }
        }
        x.reply(answer);
      } finally {
        for (const { admission } of admissions) this.model.settle(admission, consumed.get(admission) ?? []);
      }
    },

    async BatchWriteItem(x, input) {
      const requestItems = input.RequestItems as Record<string, Json[]>;
      const writes = Object.entries(requestItems).flatMap(([name, requests]) =>
        requests.map((request) => {
          const table = x.table(name);
          const after = (request.PutRequest as Json | undefined)?.Item as Item | undefined;
          const key = after ? keyOf(table, after) : ((request.DeleteRequest as Json).Key as Key);
          return { name, request, table, key, after };
        }),
      );
      const current = await this.currentItems(writes);
      const admitted: Record<string, Json[]> = {};
      const refused: Record<string, Json[]> = {};
      const admissions: { write: (typeof writes)[number]; admission: Admission; charges: Charge[] }[] = [];
      let firstRefusal: { table: TableSchema; charge: Charge } | undefined;
      for (const write of writes) {
        const charges = writeCharges(
          write.table,
          write.key,
          current.get(itemId(write.table, write.key)),
          write.after,
        );
        const result = this.model.admit(charges);
        const target = 'admission' in result ? admitted : refused;
        target[write.name] ??= [];
        target[write.name]?.push(write.request);
        if ('admission' in result) admissions.push({ write, admission: result.admission, charges });
        else firstRefusal ??= { table: write.table, charge: result.refusedBy };
      }
      if (firstRefusal && admissions.length === 0)
        return x.throttled(firstRefusal.table, firstRefusal.charge);
      let answer: Answer | undefined;
      try {
        answer = await x.forward(firstRefusal ? { ...input, RequestItems: admitted } : input);
        if (answer.status === 200 && firstRefusal) {
          const unprocessed = (answer.body.UnprocessedItems ?? {}) as Record<string, Json[]>;
          for (const [name, requests] of Object.entries(refused))
            unprocessed[name] = [...(unprocessed[name] ?? []), ...requests];
          return x.reply(answer, { ...answer.body, UnprocessedItems: unprocessed });
        }
        x.reply(answer);
      } finally {
        const left = new Set(
          Object.entries((answer?.status === 200 ? answer.body.UnprocessedItems : {}) ?? {}).flatMap(
            ([name, requests]) =>
              (requests as Json[]).map((request) => {
                const put = (request.PutRequest as Json | undefined)?.Item as Item | undefined;
                return itemId(
                  x.table(name),
                  put ? keyOf(x.table(name), put) : ((request.DeleteRequest as Json).Key as Key),
                );
              }),
          ),
        );
        for (const { write, admission, charges } of admissions) {
          const done = answer?.status === 200 && !left.has(itemId(write.table, write.key));
          this.model.settle(admission, done ? charges : []);
        }
      }
    },

    async BatchExecuteStatement(x, input) {
      const statements = input.Statements as Json[];
      const inserts = (batchInserts(input) ?? []).map((insert) => {
        const table = x.table(insert?.table);
        const after = insert?.item as Item;
        return { table, key: keyOf(table, after), after };
      });
      type Insert = (typeof inserts)[number];
      // An INSERT writes only where no item is: one that succeeds had nothing before it, so the items are read
      // (to size a failed condition) only for the statements that fail with DuplicateItem.
      const admissions = new Map<number, Admission>();
      const refusals = new Map<number, Charge>();
      for (const [index, insert] of inserts.entries()) {
        const result = this.model.admit(writeCharges(insert.table, insert.key, undefined, insert.after));
        if ('admission' in result) admissions.set(index, result.admission);
        else refusals.set(index, result.refusedBy);
      }
      const forwarded = [...admissions.keys()];
      const consumed = new Map<number, Charge[]>();
      try {
        let answer: Answer | undefined;
        let responses: Json[] = [];
        if (forwarded.length) {
          answer = await x.forward(
            refusals.size ? { ...input, Statements: forwarded.map((index) => statements[index]) } : input,
          );
          if (answer.status !== 200) return x.reply(answer);
          responses = (answer.body.Responses ?? []) as Json[];
        }
        const codeAt = (position: number) => (responses[position]?.Error as Json | undefined)?.Code;
        const duplicates = forwarded.filter((_, position) => codeAt(position) === 'DuplicateItem');
        const current = await this.currentItems(duplicates.map((index) => inserts[index] as Insert));
        for (const [position, index] of forwarded.entries()) {
          const insert = inserts[index] as Insert;
          const code = codeAt(position);
          if (code === undefined)
            consumed.set(index, writeCharges(insert.table, insert.key, undefined, insert.after));
          else if (code === 'DuplicateItem') {
            const existing = current.get(itemId(insert.table, insert.key));
            consumed.set(index, [
              partitionCharge(insert.table, insert.key, 'write', tableWriteUnits(existing, insert.after)),
            ]);
          }
        }
        if (!refusals.size) return x.reply(answer as Answer);
        const merged = inserts.map((insert, index) => {
          const refusal = refusals.get(index);
          return refusal ? x.throttledStatement(insert.table, refusal) : responses[forwarded.indexOf(index)];
        });
        if (answer) x.reply(answer, { ...answer.body, Responses: merged });
        else x.answer({ Responses: merged });
      } finally {
        for (const [index, admission] of admissions) this.model.settle(admission, consumed.get(index) ?? []);
      }
    },

    async TransactWriteItems(x, input) {
      const actions = (input.TransactItems as Json[]).map((action) => {
        const [kind, detail] = Object.entries(action)[0] as [string, Json];
        const table = x.table(detail.TableName);
        const after = kind === 'Put' ? (detail.Item as Item) : undefined;
        return { kind, table, key: after ? keyOf(table, after) : (detail.Key as Key), after };
      });
      const before = await this.currentItems(actions);
      const beforeOf = (action: (typeof actions)[number]) => before.get(itemId(action.table, action.key));
      const charges = (afterOf: (action: (typeof actions)[number]) => Item | undefined) =>
        actions.map((action) =>
          action.kind === 'ConditionCheck'
            ? [
                partitionCharge(
                  action.table,
                  action.key,
                  'write',
                  2 * tableWriteUnits(beforeOf(action), undefined),
                ),
              ]
            : writeCharges(action.table, action.key, beforeOf(action), afterOf(action), 2),
        );
      // Updates are expected to leave the item as it was; deletes to remove it; puts to write what they carry.
      const expected = charges((action) => (action.kind === 'Update' ? beforeOf(action) : action.after));
      const result = this.model.admit(expected.flat());
      if ('refusedBy' in result) {
        const refusedBy = result.refusedBy;
        const hits = expected.map((list) =>
          list.some((charge) => samePartition(charge, refusedBy) && charge.access === refusedBy.access),
        );
        return x.cancelledForThrottling(actions[hits.indexOf(true)]?.table as TableSchema, refusedBy, hits);
      }
      let consumed: Charge[] = [];
      try {
        const answer = await x.forward(input);
        if (answer.status === 200) {
          const updated = actions.filter((action) => action.kind === 'Update');
          const after = updated.length ? await this.currentItems(updated) : new Map<string, Item>();
          consumed = charges((action) =>
            action.kind === 'Update' ? after.get(itemId(action.table, action.key)) : action.after,
          ).flat();
        } else if (answer.error === 'TransactionCanceledException') {
          consumed = charges((action) => action.after ?? beforeOf(action)).flat();
        }
        x.reply(answer);
      } finally {
        this.model.settle(result.admission, consumed);
      }
    },

    async TransactGetItems(x, input) {
      const gets = (input.TransactItems as { Get: Json }[]).map(({ Get }) => ({
        table: x.table(Get.TableName),
        key: Get.Key as Key,
        projected: isProjected(Get),
      }));
      const expected = gets.map(({ table, key }) =>
        partitionCharge(table, key, 'read', readUnits(0, 'transactional')),
      );
      const result = this.model.admit(expected);
      if ('refusedBy' in result) {
        const refusedBy = result.refusedBy;
        const hits = expected.map((charge) => samePartition(charge, refusedBy));
        return x.cancelledForThrottling(gets[hits.indexOf(true)]?.table as TableSchema, refusedBy, hits);
      }
      let consumed: Charge[] = [];
      try {
        const answer = await x.forward(input);
        if (answer.status === 200) {
          const responses = (answer.body.Responses ?? []) as { Item?: Item }[];
          const projected = gets.filter((get) => get.projected);
          const whole = projected.length ? await this.currentItems(projected) : new Map<string, Item>();
          consumed = gets.map(({ table, key, projected }, i) => {
            const item = projected ? whole.get(itemId(table, key)) : responses[i]?.Item;
            return partitionCharge(table, key, 'read', readUnits(item ? itemSize(item) : 0, 'transactional'));
          });
        }
        x.reply(answer);
      } finally {
        this.model.settle(result.admission, consumed);
      }
    },
  };

  /**
   * A PutItem, UpdateItem or DeleteItem: let in on the partitions of the item before and (when known) after,
   * forwarded, and charged by the item before and after; a failed condition by the larger of the item there
   * and the one sent.
   */
  private async singleWrite(
    x: Exchange,
    table: TableSchema,
    key: Key,
    before: Item | undefined,
    expectedAfter: Item | undefined,
    actualAfter: () => Promise<Item | undefined>,
  ): Promise<void> {
    const result = this.model.admit(writeCharges(table, key, before, expectedAfter));
    if ('refusedBy' in result) return x.throttled(table, result.refusedBy);
    let consumed: Charge[] = [];
    try {
      const answer = await x.forward();
      if (answer.status === 200) consumed = writeCharges(table, key, before, await actualAfter());
      else if (answer.error === 'ConditionalCheckFailedException')
        consumed = [partitionCharge(table, key, 'write', tableWriteUnits(before, expectedAfter))];
      x.reply(answer);
    } finally {
      this.model.settle(result.admission, consumed);
    }
  }

  /** A GetItem or Query: let in on its partition, charged what DynamoDB Local reports (at least `minimum`). */
  private async reportedRead(x: Exchange, input: Json, table: TableSchema, minimum: Charge): Promise<void> {
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

/** One call on its way: forwarding it, and answering it as DynamoDB would. */
class Exchange {
  constructor(
    private readonly call: SignedCall,
    private readonly upstream: Upstream,
    private readonly body: Buffer,
    private readonly tables: Map<string, TableSchema>,
  ) {}

  table(name: unknown): TableSchema {
    return this.tables.get(String(name)) as TableSchema;
  }

  /**
   * Sends the call (or a changed body) to DynamoDB Local and reads the whole answer; its JSON is parsed when
   * first read (an answer relayed as it came, a page of 1,000 items among them, is never parsed).
   */
  async forward(changed?: Json): Promise<Answer> {
    const { req } = this.call;
    const response = await this.upstream.send(
      'POST',
      req.url ?? '/',
      endToEndHeaders(req.headers),
      changed ? Buffer.from(JSON.stringify(changed)) : this.body,
    );
    const raw = await readBody(response);
    let parsed: Json | undefined;
    const body = (): Json => {
      if (parsed) return parsed;
      try {
        parsed = raw.length ? (JSON.parse(raw.toString('utf8')) as Json) : {};
      } catch {
        // Not JSON: relayed as it came.
        parsed = {};
      }
      return parsed;
    };
    const status = response.statusCode ?? 502;
    const type = status >= 400 ? body().__type : undefined;
    return {
      response,
      status,
      raw,
      get body() {
        return body();
      },
      error: typeof type === 'string' ? type.replace(/^.*#/, '') : undefined,
    };
  }

  /** Relays DynamoDB Local's answer, or `changed` in its place (with a fresh checksum). */
  reply(answer: Answer, changed?: Json | Buffer): void {
    const { response } = answer;
    if (!changed) {
      replyWith(this.call.res, response, answer.raw);
      return;
    }
    const text = Buffer.isBuffer(changed) ? changed : Buffer.from(JSON.stringify(changed));
    replyWith(this.call.res, response, text, {
      'x-amz-crc32': response.headers['x-amz-crc32'] === undefined ? undefined : String(crc32(text)),
    });
  }

  private arn(table: TableSchema, index?: string): string {
    const { region, accountId } = this.call.scope;
    return `arn:aws:dynamodb:${region}:${accountId}:table/${table.name}${index ? `/index/${index}` : ''}`;
  }

  /**
   * The answer to a call throttled on a hot key: on-demand, ThrottlingException (as live errors show), with
   * the throttling reason (ThrottlingReason: KeyRangeThroughputExceeded, per table or index, read or write);
   * provisioned, ProvisionedThroughputExceededException. The SDKs retry both.
   */
  throttled(table: TableSchema, charge: Charge): void {
    const reasons = [
      {
        reason: `${charge.index ? 'Index' : 'Table'}${charge.access === 'read' ? 'Read' : 'Write'}KeyRangeThroughputExceeded`,
        resource: this.arn(table, charge.index),
      },
    ];
    if (table.onDemand) {
      sendJson(this.call.res, 400, {
        __type: 'com.amazon.coral.availability#ThrottlingException',
        message: charge.index && charge.access === 'write' ? HOT_INDEX_MESSAGE : HOT_KEY_MESSAGE,
        throttlingReasons: reasons,
      });
      return;
    }
    sendJson(this.call.res, 400, {
      __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message: charge.index ? PROVISIONED_INDEX_MESSAGE : PROVISIONED_TABLE_MESSAGE,
      ThrottlingReasons: reasons,
    });
  }

  /** Answers the call with `body` (200), in DynamoDB Local's stead. */
  answer(body: Json): void {
    sendJson(this.call.res, 200, body);
  }

  /**
   * A PartiQL statement of a batch throttled on a hot key: its entry of the batch's Responses (the call itself
   * succeeds), `ThrottlingError` with the hot-key message on an on-demand table, in the shape captured from
   * DynamoDB (boto/boto3#3834: `{'Error': {'Code': 'ThrottlingError', 'Message': 'Throughput exceeds ...'},
   * 'TableName': ...}`); `ProvisionedThroughputExceeded` on a provisioned table (BatchStatementError's codes).
   */
  throttledStatement(table: TableSchema, charge: Charge): Json {
    const hotIndex = charge.index !== undefined;
    const error = table.onDemand
      ? { Code: 'ThrottlingError', Message: hotIndex ? HOT_INDEX_MESSAGE : HOT_KEY_MESSAGE }
      : {
          Code: 'ProvisionedThroughputExceeded',
          Message: hotIndex ? PROVISIONED_INDEX_MESSAGE : PROVISIONED_TABLE_MESSAGE,
        };
    return { Error: error, TableName: table.name };
  }

  /**
   * A transaction throttled on a hot key: TransactionCanceledException, its reasons in the order of its
   * items, `ThrottlingError` (on-demand) or `ProvisionedThroughputExceeded` for those on the hot key and
   * `None` for the others, in the shape captured from DynamoDB. The SDKs do not retry it.
   */
  cancelledForThrottling(table: TableSchema, charge: Charge, hits: readonly boolean[]): void {
    const code = table.onDemand ? 'ThrottlingError' : 'ProvisionedThroughputExceeded';
    const message = table.onDemand
      ? charge.index && charge.access === 'write'
        ? HOT_INDEX_MESSAGE
        : `${HOT_KEY_MESSAGE}.`
      : charge.index
        ? PROVISIONED_INDEX_MESSAGE
        : PROVISIONED_TABLE_MESSAGE;
    const reasons = hits.map((hit) => (hit ? { Code: code, Message: message } : { Code: 'None' }));
    sendJson(this.call.res, 400, {
      __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
      CancellationReasons: reasons,
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
    });
  }
}

/** An item's key, in the table's key attributes. */
function keyOf(table: TableSchema, item: Item): Key {
  const key: Key = {};
  for (const name of [table.partitionKey, table.sortKey]) if (name && item[name]) key[name] = item[name];
  return key;
}

/** Tells items apart by table and key. */
function itemId(table: TableSchema, item: Item): string {
  return JSON.stringify([
    table.name,
    keyText(item[table.partitionKey]),
    table.sortKey ? keyText(item[table.sortKey]) : null,
  ]);
}

/** A key for the SDK client: binary values as bytes rather than base64. */
function sdkKey(key: Key): Key {
  return Object.fromEntries(
    Object.entries(key).map(([name, value]) => [
      name,
      typeof value.B === 'string' ? { B: Buffer.from(value.B, 'base64') } : value,
    ]),
  );
}

const partitionCharge = (table: TableSchema, key: Key, access: Charge['access'], units: number): Charge => ({
  table: table.name,
  partitionKey: keyText(key[table.partitionKey]) ?? '',
  access,
  units,
});

const samePartition = (a: Charge, b: Charge) =>
  a.table === b.table && a.index === b.index && a.partitionKey === b.partitionKey;

/** The units one write of an item (before -> after) costs the table's partition and each index's; `factor` 2 in a transaction (the table's only). */
function writeCharges(
  table: TableSchema,
  key: Key,
  before: Item | undefined,
  after: Item | undefined,
  factor = 1,
): Charge[] {
  const charges = [partitionCharge(table, key, 'write', factor * tableWriteUnits(before, after))];
  for (const index of table.indexes)
    for (const write of indexWrites(before, after, index, table))
      charges.push({
        table: table.name,
        index: write.index,
        partitionKey: write.partitionKey,
        access: 'write',
        units: write.units,
      });
  return charges;
}

const isProjected = (request: Json | undefined) =>
  request?.ProjectionExpression !== undefined || request?.AttributesToGet !== undefined;

/**
 * The partition key value a Query names: `key = :value` in its KeyConditionExpression (either way round,
 * the name possibly a `#placeholder`), or the legacy KeyConditions' EQ.
 */
function queryPartitionKey(input: Json, keyName: string): string | undefined {
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, Item[string]>;
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const legacy = (
    input.KeyConditions as Record<string, { AttributeValueList?: Item[string][] }> | undefined
  )?.[keyName];
  if (legacy) return keyText(legacy.AttributeValueList?.[0]);
  const expression = String(input.KeyConditionExpression ?? '');
  const equality = /(#?[\w.-]+)\s*=\s*(:\w+)|(:\w+)\s*=\s*(#?[\w.-]+)/g;
  for (const match of expression.matchAll(equality)) {
    const name = match[1] ?? match[4] ?? '';
    const placeholder = (match[2] ?? match[3]) as string;
    if ((name.startsWith('#') ? names[name] : name) === keyName) return keyText(values[placeholder]);
  }
  return undefined;
}

/** The call asking DynamoDB Local for its count of what it read (TOTAL, unless the caller asked for more). */
function withReportedCapacity(input: Json): Json {
  return input.ReturnConsumedCapacity === 'TOTAL' || input.ReturnConsumedCapacity === 'INDEXES'
    ? input
    : { ...input, ReturnConsumedCapacity: 'TOTAL' };
}

const reportedUnits = (body: Json) => Number((body.ConsumedCapacity as Json | undefined)?.CapacityUnits ?? 0);

const askedForCapacity = (input: Json) =>
  input.ReturnConsumedCapacity === 'TOTAL' || input.ReturnConsumedCapacity === 'INDEXES';

/**
 * The count DynamoDB Local puts last in its answer to a call that asked for TOTAL
 * (`…,"ConsumedCapacity":{"TableName":"t","CapacityUnits":1.5}}`, or the whole answer to a GetItem of nothing),
 * and where it starts: read from the answer's tail, so that a page of items need not be parsed and written
 * again to be relayed without it. No item can end an answer so: an attribute's value is a typed object.
 */
const TRAILING_CAPACITY = /,?"ConsumedCapacity":\{"TableName":"[\w.-]+","CapacityUnits":(\d+(?:\.\d+)?)\}\}$/;
function trailingCapacity(raw: Buffer): { units: number; at: number } | undefined {
  const from = Math.max(0, raw.length - 512);
  const match = TRAILING_CAPACITY.exec(raw.subarray(from).toString('latin1'));
  return match ? { units: Number(match[1]), at: from + match.index } : undefined;
}

/** The answer as the caller asked for it: without the count it did not ask for (undefined: unchanged). */
function shownCapacity(input: Json, body: Json): Json | undefined {
  if (askedForCapacity(input)) return undefined;
  if (!('ConsumedCapacity' in body)) return undefined;
  const { ConsumedCapacity: _, ...rest } = body;
  return rest;
}
