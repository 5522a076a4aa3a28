import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { expect } from 'vitest';
import { itemSize } from '../../local/aws-proxy/dynamodb-capacity';
import type { Access, PartitionModel } from '../../local/aws-proxy/dynamodb-partitions';

/* The partition model's tests' helpers (test/e2e/dynamodb-partitions.test.ts). */

export type Item = Record<string, AttributeValue>;

/** An item of exactly `bytes` bytes by DynamoDB's sizing, under partition key `pk`. */
export function item(pk: string, sk: string, bytes: number, extra: Item = {}): Item {
  const fixed: Item = { pk: { S: pk }, sk: { S: sk }, ...extra };
  const filler = bytes - itemSize(fixed) - 'data'.length;
  const built = { ...fixed, data: { S: 'x'.repeat(filler) } };
  expect(itemSize(built)).toBe(bytes);
  return built;
}

/**
 * What the partition model `model()` counted, a partition it exhausts, and an INSERT into the table `table()`
 * (both made in the test file's beforeAll).
 */
export function partitionProbe(model: () => PartitionModel, table: () => string) {
  function usage(partitionKey: string, index?: string) {
    const found = model()
      .report()
      .partitions.find((p) => p.partitionKey === partitionKey && p.index === (index ?? null));
    return {
      writeUnits: found?.writeUnits ?? 0,
      readUnits: found?.readUnits ?? 0,
      throttledWrites: found?.throttledWrites ?? 0,
      throttledReads: found?.throttledReads ?? 0,
    };
  }

  /** Takes far more than a partition holds, so that it refuses every call for the rest of the file. */
  function exhaust(partitionKey: string, access: Access, index?: string) {
    const result = model().admit([{ table: table(), index, partitionKey, access, units: 1e9 }]);
    expect('admission' in result).toBe(true);
  }

  /** A BatchExecuteStatement statement inserting `inserted` (the service's form: every value a parameter). */
  const insert = (inserted: Item) => ({
    Statement: `INSERT INTO "${table()}" VALUE {${Object.keys(inserted)
      .map((name) => `'${name}': ?`)
      .join(', ')}}`,
    Parameters: Object.values(inserted),
  });

  return { usage, exhaust, insert };
}
