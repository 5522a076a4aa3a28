import { describe, expect, it } from 'vitest';
import {
  type IndexSchema,
  type Item,
  indexWrites,
  itemSize,
  numberSize,
  readUnits,
  type TableSchema,
  tableWriteUnits,
  writeUnits,
} from '../../local/aws-proxy/dynamodb-capacity';

/**
 * The capacity arithmetic of the local DynamoDB endpoint against AWS's documented examples ("DynamoDB item
 * sizes and formats", "Provisioned throughput", "DynamoDB transactions: capacity management") and against
 * boundaries measured on AWS by dynalite's and dynoxide's test suites.
 */

const KB = 1024;

describe('item size', () => {
  it('counts attribute names and string values as UTF-8 bytes, binary as raw bytes', () => {
    expect(itemSize({ name: { S: 'abc' } })).toBe(4 + 3);
    // é is 2 bytes, 😀 4 (a name counts the same way as a value).
    expect(itemSize({ é: { S: '😀' } })).toBe(2 + 4);
    expect(itemSize({ b: { B: Buffer.from([1, 2, 3]).toString('base64') } })).toBe(1 + 3);
    expect(itemSize({ b: { B: new Uint8Array([1, 2, 3]) } })).toBe(1 + 3);
    expect(itemSize({ n: { NULL: true }, t: { BOOL: false } })).toBe(2 + 2);
  });

  it('gives lists and maps 3 bytes and each element 1 more (a map element also its name)', () => {
    expect(itemSize({ l: { L: [] } })).toBe(1 + 3);
    expect(itemSize({ l: { L: [{ S: 'ab' }, { BOOL: true }] } })).toBe(1 + 3 + (1 + 2) + (1 + 1));
    expect(itemSize({ m: { M: { ab: { S: 'xyz' } } } })).toBe(1 + 3 + (1 + 2 + 3));
    expect(itemSize({ s: { SS: ['ab', 'c'] } })).toBe(1 + 3);
  });

  it('sizes numbers as base-100 digits aligned on the decimal point, plus one byte (and one if negative)', () => {
    expect(numberSize('0')).toBe(1);
    // dynoxide's measurement on AWS: 42 takes 2 bytes, -42 takes 3.
    expect(numberSize('42')).toBe(2);
    expect(numberSize('-42')).toBe(3);
    // dynalite's boundary on AWS: the item with it was 1,024 bytes (1 unit), one byte more took 2 (below).
    expect(numberSize('12.3456')).toBe(4);
    // dynalite's pair "too big" / "just small enough with multi number attribute" pins these at 5 bytes.
    expect(numberSize(`1111111${'0'.repeat(119)}`)).toBe(5);
    expect(numberSize('1.111111E+125')).toBe(5);
    expect(numberSize(`1${'0'.repeat(125)}`)).toBe(2);
    // Leading and trailing zeros are trimmed.
    expect(numberSize('007.500')).toBe(numberSize('7.5'));
    // Where the decimal point lies outside the digits, pairs start at it: 120 is 01|20, 0.012 is .01|20.
    expect(numberSize('120')).toBe(3);
    expect(numberSize('0.012')).toBe(3);
    expect(numberSize('1200')).toBe(2);
  });

  it('reaches 1,024 bytes exactly where AWS charged one write unit, and 1,025 where it charged two', () => {
    // dynalite's "should return ConsumedCapacity for small item / larger item", run against AWS.
    const small: Item = {
      a: { S: 'k'.repeat(10) },
      b: { S: 'b'.repeat(999) },
      c: { N: '12.3456' },
      d: { B: 'AQI=' },
      e: { BS: ['AQI=', 'Ag==', 'AQ=='] },
    };
    const larger: Item = { ...small, b: { S: 'b'.repeat(1001) }, e: { BS: ['AQI=', 'Ag=='] } };
    expect(itemSize(small)).toBe(1024);
    expect(writeUnits(itemSize(small))).toBe(1);
    expect(itemSize(larger)).toBe(1025);
    expect(writeUnits(itemSize(larger))).toBe(2);
  });
});

describe('write units', () => {
  it('charges one unit per started KB: 500 bytes 1, 1.6 KB 2, and a batch item by item', () => {
    expect(writeUnits(500)).toBe(1);
    expect(writeUnits(1.6 * KB)).toBe(2);
    // "if BatchWriteItem writes a 500-byte item and a 3.5 KB item, DynamoDB calculates the size as 5 KB".
    expect(writeUnits(500) + writeUnits(3.5 * KB)).toBe(5);
  });

  it('charges a write by the larger of the item before and after, and one for nothing either side', () => {
    const item = (bytes: number): Item => ({ d: { S: 'x'.repeat(bytes - 1) } });
    expect(tableWriteUnits(item(3 * KB), item(100))).toBe(3);
    expect(tableWriteUnits(item(100), item(2.5 * KB))).toBe(3);
    expect(tableWriteUnits(item(5 * KB), undefined)).toBe(5);
    // A delete of nothing, or a failed condition on an item that is not there: one unit.
    expect(tableWriteUnits(undefined, undefined)).toBe(1);
    // "a failed conditional write of a 1 KB item would consume one write capacity unit ... twice that size, two".
    expect(tableWriteUnits(item(KB), undefined)).toBe(1);
    expect(tableWriteUnits(item(2 * KB), undefined)).toBe(2);
  });

  it('doubles a transaction: three 500-byte items take six units', () => {
    expect(3 * 2 * writeUnits(500)).toBe(6);
  });
});

describe('read units', () => {
  it('charges one unit per started 4 KB, half eventually consistent, twice in a transaction', () => {
    // "reading a 3,500-byte item consumes the same throughput as reading a 4 KB item".
    expect(readUnits(3500, 'strong')).toBe(1);
    // "an item that is 8 KB ... 2 read units ... 1 eventually consistent ... 4 for a transactional read".
    expect(readUnits(8 * KB, 'strong')).toBe(2);
    expect(readUnits(8 * KB, 'eventual')).toBe(1);
    expect(readUnits(8 * KB, 'transactional')).toBe(4);
    // "If you read an item of 10 KB, DynamoDB rounds the item size to 12 KB".
    expect(readUnits(10 * KB, 'strong')).toBe(3);
    // A read of an item that does not exist still costs the minimum.
    expect(readUnits(0, 'eventual')).toBe(0.5);
    expect(readUnits(0, 'strong')).toBe(1);
  });

  it('rounds BatchGetItem per item and a Query page on the sum of its items', () => {
    // "if BatchGetItem reads a 1.5 KB item and a 6.5 KB item, DynamoDB calculates the size as 12 KB".
    expect(readUnits(1.5 * KB, 'strong') + readUnits(6.5 * KB, 'strong')).toBe(3);
    // "your query returns 10 items whose combined size is 40.8 KB. DynamoDB rounds ... to 44 KB".
    expect(readUnits(40.8 * KB, 'strong')).toBe(11);
    // "If a query returns 1500 items of 64 bytes each, the cumulative size is 96 KB".
    expect(readUnits(1500 * 64, 'strong')).toBe(24);
    // "For an eventually consistent read, if the total item size is 80 KB, the operation consumes only 10".
    expect(readUnits(80 * KB, 'eventual')).toBe(10);
  });
});

describe('index writes', () => {
  const index: IndexSchema = {
    name: 'gsi1',
    partitionKey: 'gpk',
    sortKey: 'gsk',
    projection: 'ALL',
    include: [],
  };
  const table: TableSchema = {
    name: 't',
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: [index],
    onDemand: true,
  };
  const item = (gpk: string | undefined, bytes: number, extra: Item = {}): Item => {
    const keys: Item = {
      pk: { S: 'p' },
      sk: { S: 's' },
      ...(gpk ? { gpk: { S: gpk }, gsk: { S: 'x' } } : {}),
    };
    return { ...keys, ...extra, d: { S: 'x'.repeat(bytes - itemSize(keys) - itemSize(extra) - 1) } };
  };

  it('charges nothing for an item outside the index before and after', () => {
    expect(indexWrites(item(undefined, 100), item(undefined, 3000), index, table)).toEqual([]);
  });

  it('charges the entry that appears or goes, on its partition', () => {
    expect(indexWrites(undefined, item('G', 1500), index, table)).toEqual([
      { index: 'gsi1', partitionKey: 'G', units: 2 },
    ]);
    expect(indexWrites(item('G', 2500), undefined, index, table)).toEqual([
      { index: 'gsi1', partitionKey: 'G', units: 3 },
    ]);
  });

  it('charges a moved key twice (a delete at the old key, an insert at the new), each on its own size', () => {
    expect(indexWrites(item('G', 1500), item('H', 500), index, table)).toEqual([
      { index: 'gsi1', partitionKey: 'G', units: 2 },
      { index: 'gsi1', partitionKey: 'H', units: 1 },
    ]);
  });

  it('charges an entry changed in place by the larger side, and nothing for one left as it was', () => {
    expect(indexWrites(item('G', 2500), item('G', 500), index, table)).toEqual([
      { index: 'gsi1', partitionKey: 'G', units: 3 },
    ]);
    const same = item('G', 800, { tags: { SS: ['a', 'b'] } });
    const reordered = { ...same, tags: { SS: ['b', 'a'] } };
    expect(indexWrites(same, reordered, index, table)).toEqual([]);
  });

  it('sizes a KEYS_ONLY entry on the keys alone', () => {
    const keysOnly: IndexSchema = { ...index, projection: 'KEYS_ONLY' };
    const changed = indexWrites(item('G', 5000), item('G', 6000), keysOnly, table);
    // The entry (pk, sk, gpk, gsk) is the same before and after: the large attribute is not in it.
    expect(changed).toEqual([]);
    expect(indexWrites(undefined, item('G', 5000), keysOnly, table)).toEqual([
      { index: 'gsi1', partitionKey: 'G', units: 1 },
    ]);
  });
});
