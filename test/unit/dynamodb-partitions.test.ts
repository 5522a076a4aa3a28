import { describe, expect, it } from 'vitest';
import {
  type Charge,
  floorSeconds,
  PartitionModel,
  type PartitionUsage,
} from '../../local/aws-proxy/dynamodb-partitions';
import { localPartitionMode } from '../../local/cloud-runtime';

/** The partition model's buckets and counters, on a clock the test moves. */

function modelAt(enforcing: boolean) {
  const clock = { now: 1_000_000 };
  return { clock, model: new PartitionModel(enforcing, () => clock.now) };
}

const write = (partitionKey: string, units: number, index?: string): Charge => ({
  table: 't',
  index,
  partitionKey,
  access: 'write',
  units,
});
const read = (partitionKey: string, units: number): Charge => ({
  ...write(partitionKey, units),
  access: 'read',
});

/** Admits and settles at once, as a request that consumed what it was expected to. */
function consume(model: PartitionModel, charges: Charge[]): boolean {
  const result = model.admit(charges);
  if (!('admission' in result)) return false;
  model.settle(result.admission, charges);
  return true;
}

describe('PartitionModel', () => {
  it('lets a key take its second of burst, then refuses it until the bucket refills at 1,000 units a second', () => {
    const { clock, model } = modelAt(true);
    expect(consume(model, [write('hot', 600)])).toBe(true);
    // The bucket still has 400: let in, and left 200 in debt.
    expect(consume(model, [write('hot', 600)])).toBe(true);
    expect(consume(model, [write('hot', 1)])).toBe(false);
    clock.now += 150;
    expect(consume(model, [write('hot', 1)])).toBe(false);
    clock.now += 100;
    expect(consume(model, [write('hot', 1)])).toBe(true);
    // Another key, and reads of the same key, have buckets of their own.
    expect(consume(model, [write('cold', 900)])).toBe(true);
    expect(consume(model, [read('hot', 2900)])).toBe(true);
    const hot = model.report().partitions.find((p) => p.partitionKey === 'hot' && p.index === null);
    expect(hot).toMatchObject({ writeUnits: 1201, readUnits: 2900, throttledWrites: 2, throttledReads: 0 });
  });

  it('refuses a request when any partition it touches is out of capacity, and takes nothing from the others', () => {
    const { model } = modelAt(true);
    expect(consume(model, [write('G', 1001, 'gsi1')])).toBe(true);
    expect(consume(model, [write('a', 1), write('G', 1, 'gsi1')])).toBe(false);
    expect(model.report().partitions.find((p) => p.partitionKey === 'a')?.writeUnits ?? 0).toBe(0);
    expect(consume(model, [write('a', 1000)])).toBe(true);
  });

  it('settles what a request consumed in place of what it was expected to', () => {
    const { model } = modelAt(true);
    const result = model.admit([write('k', 1000)]);
    if (!('admission' in result)) throw new Error('not admitted');
    // It turned out to consume 10: the rest goes back to the bucket.
    model.settle(result.admission, [write('k', 10)]);
    expect(consume(model, [write('k', 900)])).toBe(true);
    expect(model.report().partitions[0]?.writeUnits).toBe(910);
  });

  it('counts without refusing when it does not enforce, with the busiest second of each key', () => {
    const { clock, model } = modelAt(false);
    for (let i = 0; i < 30; i++) expect(consume(model, [write('hot', 100)])).toBe(true);
    clock.now += 1000;
    expect(consume(model, [write('hot', 50)])).toBe(true);
    model.recordScan('t', 12.5);
    const report = model.report();
    expect(report.enforcing).toBe(false);
    expect(report.partitions[0]).toMatchObject({
      writeUnits: 3050,
      peakWriteUnitsPerSecond: 3000,
      throttledWrites: 0,
    });
    expect(report.scanReadUnits).toEqual({ t: 12.5 });
    model.reset();
    expect(model.report().partitions).toEqual([]);
  });
});

describe('floorSeconds', () => {
  const usage = (partitionKey: string, writeUnits: number, readUnits: number): PartitionUsage => ({
    table: 't',
    index: null,
    partitionKey,
    writeUnits,
    readUnits,
    peakWriteUnitsPerSecond: 0,
    peakReadUnitsPerSecond: 0,
    throttledWrites: 0,
    throttledReads: 0,
  });

  it("is the busiest partition's units over its limit: writes at 1,000 a second, reads at 3,000", () => {
    const floor = floorSeconds([usage('a', 2500, 0), usage('b', 100, 9000), usage('c', 10, 10)]);
    expect(floor.seconds).toBe(3);
    expect(floor.partition?.partitionKey).toBe('b');
    expect(floor.access).toBe('read');
    expect(floorSeconds([usage('a', 2500, 0)]).seconds).toBe(2.5);
    expect(floorSeconds([]).seconds).toBe(0);
  });
});

describe('LOCAL_DYNAMODB_PARTITIONS', () => {
  it('turns the model off by default, on with count or enforce, and refuses anything else', () => {
    expect(localPartitionMode({})).toBe('off');
    expect(localPartitionMode({ LOCAL_DYNAMODB_PARTITIONS: '' })).toBe('off');
    expect(localPartitionMode({ LOCAL_DYNAMODB_PARTITIONS: 'count' })).toBe('count');
    expect(localPartitionMode({ LOCAL_DYNAMODB_PARTITIONS: 'enforce' })).toBe('enforce');
    expect(() => localPartitionMode({ LOCAL_DYNAMODB_PARTITIONS: 'on' })).toThrow(
      "LOCAL_DYNAMODB_PARTITIONS must be off, count or enforce, not 'on'",
    );
  });
});
