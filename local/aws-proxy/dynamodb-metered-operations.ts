/** The data-plane calls the capacity meter answers itself, one function each (dynamodb-metering.ts). */

import { batchInserts } from '../iam/partiql';
import {
  type Item,
  itemSize,
  keyText,
  type ReadMode,
  readUnits,
  type TableSchema,
  tableWriteUnits,
} from './dynamodb-capacity';
import {
  isProjected,
  itemId,
  type Key,
  keyOf,
  partitionCharge,
  queryPartitionKey,
  reportedUnits,
  samePartition,
  shownCapacity,
  withReportedCapacity,
  writeCharges,
} from './dynamodb-charges';
import type { Answer, Exchange, Json } from './dynamodb-exchange';
import type { CapacityMeter } from './dynamodb-metering';
import type { Admission, Charge } from './dynamodb-partitions';

export const meteredOperations: Record<
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
    // The item after the update comes with the answer when the caller asks for no other values (ALL_NEW, taken
    // out of the answer again): a read less per update. Otherwise it is read after.
    if (input.ReturnValues === undefined || input.ReturnValues === 'NONE') {
      await this.singleWrite(
        x,
        table,
        key,
        before,
        before,
        async (answer) => answer.body.Attributes as Item,
        {
          input: { ...input, ReturnValues: 'ALL_NEW' },
          shown: ({ body: { Attributes: _, ...rest } }) => rest,
        },
      );
      return;
    }
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
    if (firstRefusal && admissions.length === 0) return x.throttled(firstRefusal.table, firstRefusal.charge);
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
    if (firstRefusal && admissions.length === 0) return x.throttled(firstRefusal.table, firstRefusal.charge);
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
