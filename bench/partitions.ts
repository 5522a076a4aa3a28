import {
  type CapacityReport,
  floorSeconds,
  PARTITION_LIMITS,
  type PartitionUsage,
} from '../local/aws-proxy/dynamodb-partitions';
import { PARTITIONS_PATH } from '../local/aws-proxy/proxy';
import type { PartitionMode } from '../local/cloud-runtime';
import type { StackInfo } from './runtime';
import { round } from './stats';

/**
 * The bench's view of the local DynamoDB endpoint's partition model (docs/local-runtime.md, "DynamoDB's
 * per-partition limits"): what the service's own calls consumed per partition key, and the least time
 * AWS's per-partition limits (1,000 write and 3,000 read units a second per key) allow for it. The raw
 * baselines talk to DynamoDB Local directly and are not counted.
 */

/** BENCH_PARTITIONS: the runtime's partition model (default count: counted, never throttled). */
export function benchPartitionMode(env: Record<string, string | undefined>): PartitionMode {
  const value = env.BENCH_PARTITIONS;
  if (value === undefined || value === '') return 'count';
  if (value === 'off' || value === 'count' || value === 'enforce') return value;
  throw new Error(`BENCH_PARTITIONS must be off, count or enforce, not '${value}'`);
}

const partitionsUrl = (stack: StackInfo) => new URL(PARTITIONS_PATH, stack.dynamodb_endpoint);

/** The model's counters now; undefined when the runtime runs without it. */
export async function partitionReport(stack: StackInfo): Promise<CapacityReport | undefined> {
  const response = await fetch(partitionsUrl(stack));
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`${PARTITIONS_PATH} answered ${response.status}`);
  return (await response.json()) as CapacityReport;
}

export async function resetPartitions(stack: StackInfo): Promise<void> {
  const response = await fetch(partitionsUrl(stack), { method: 'DELETE' });
  if (response.status !== 204 && response.status !== 404)
    throw new Error(`${PARTITIONS_PATH} (DELETE) answered ${response.status}`);
}

const partitionId = (p: PartitionUsage) => JSON.stringify([p.table, p.index, p.partitionKey]);

/** What was consumed between two reports, per partition (peaks are not differences: left out). */
export function consumedBetween(before: CapacityReport, after: CapacityReport): PartitionUsage[] {
  const earlier = new Map(before.partitions.map((p) => [partitionId(p), p]));
  return after.partitions
    .map((p) => {
      const was = earlier.get(partitionId(p));
      return {
        ...p,
        writeUnits: p.writeUnits - (was?.writeUnits ?? 0),
        readUnits: p.readUnits - (was?.readUnits ?? 0),
        throttledWrites: p.throttledWrites - (was?.throttledWrites ?? 0),
        throttledReads: p.throttledReads - (was?.throttledReads ?? 0),
        peakWriteUnitsPerSecond: Number.NaN,
        peakReadUnitsPerSecond: Number.NaN,
      };
    })
    .filter((p) => p.writeUnits > 0 || p.readUnits > 0 || p.throttledWrites > 0 || p.throttledReads > 0);
}

/**
 * The floor AWS's per-partition limits put under the work in `partitions` (the busiest key's units over its
 * limit), that key, and the totals.
 */
export function partitionFloor(
  partitions: readonly PartitionUsage[],
  describe?: (p: PartitionUsage) => string,
) {
  const floor = floorSeconds(partitions);
  const sum = (pick: (p: PartitionUsage) => number) =>
    round(partitions.reduce((total, p) => total + pick(p), 0));
  const hottest = floor.partition;
  return {
    aws_floor_seconds: round(floor.seconds, 2),
    hottest_partition: hottest
      ? {
          ...(describe ? { what: describe(hottest) } : {}),
          index: hottest.index,
          partition_key: hottest.partitionKey,
          write_units: round(hottest.writeUnits),
          read_units: round(hottest.readUnits),
          limited_by: floor.access,
        }
      : null,
    partition_keys: partitions.length,
    write_units: sum((p) => p.writeUnits),
    read_units: sum((p) => p.readUnits),
    throttled_requests: sum((p) => p.throttledWrites + p.throttledReads),
    limits_per_partition_key: {
      write_units_per_s: PARTITION_LIMITS.write,
      read_units_per_s: PARTITION_LIMITS.read,
    },
  };
}
