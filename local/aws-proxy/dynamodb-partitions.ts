/**
 * The partition model of the local DynamoDB endpoint: the capacity consumed per partition key value (of the
 * table, and of each global secondary index), and, when enforcing, AWS's per-partition limits as a token
 * bucket per partition key: 1,000 write units and 3,000 read units a second (AWS's "Best practices for
 * designing and using partition keys effectively": every partition delivers at most "3,000 RCU and 1,000
 * WCU", and adaptive capacity gives one hot key at most "the partition maximum of 3,000 RCUs and 1,000
 * WCUs", on-demand tables too; past them DynamoDB throttles the key with a KeyRangeThroughputExceeded
 * reason whatever the table's total).
 *
 * Each key's bucket holds at most one second of its limit and refills at the limit. A request is let in
 * while each partition it touches has capacity left, and takes what it is expected to consume when it is
 * let in (so requests in flight together cannot all pass on the same capacity); what it turns out to have
 * consumed is settled when it is answered, and may leave a bucket in debt, which the next requests wait out.
 * Over any span a key thus gets at most its limit and one second's burst: never more than AWS allows.
 */

/** AWS's per-partition-key limits, in units a second. */
export const PARTITION_LIMITS = { write: 1000, read: 3000 } as const;

export type Access = keyof typeof PARTITION_LIMITS;

/** A partition of a table (index undefined) or of one of its global secondary indexes, by key value. */
export interface PartitionRef {
  table: string;
  index?: string;
  partitionKey: string;
}

/** Units a request consumes (or is expected to) on one partition. */
export interface Charge extends PartitionRef {
  access: Access;
  units: number;
}

/** What the model counted for one partition since it started or was last reset. */
export interface PartitionUsage {
  table: string;
  /** The global secondary index, or null for the table itself. */
  index: string | null;
  partitionKey: string;
  writeUnits: number;
  readUnits: number;
  /** The most units consumed within one second (of the clock: 12:00:01.000 to 12:00:01.999). */
  peakWriteUnitsPerSecond: number;
  peakReadUnitsPerSecond: number;
  /** Requests refused for this partition's limit (only when enforcing). */
  throttledWrites: number;
  throttledReads: number;
}

export interface CapacityReport {
  enforcing: boolean;
  limits: typeof PARTITION_LIMITS;
  /** Every partition that consumed or was refused capacity, the most write units first. */
  partitions: PartitionUsage[];
  /** Read units of Scans per table: a Scan reads every partition, so its units are counted per table. */
  scanReadUnits: Record<string, number>;
}

class Meter {
  units = 0;
  peak = 0;
  throttled = 0;
  private second = -1;
  private unitsThisSecond = 0;
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly limit: number,
    now: number,
  ) {
    this.tokens = limit;
    this.refilledAt = now;
  }

  hasCapacity(now: number): boolean {
    this.tokens = Math.min(this.limit, this.tokens + ((now - this.refilledAt) / 1000) * this.limit);
    this.refilledAt = now;
    return this.tokens > 0;
  }

  take(units: number): void {
    this.tokens -= units;
  }

  record(units: number, now: number): void {
    this.units += units;
    const second = Math.floor(now / 1000);
    if (second !== this.second) {
      this.second = second;
      this.unitsThisSecond = 0;
    }
    this.unitsThisSecond += units;
    this.peak = Math.max(this.peak, this.unitsThisSecond);
  }
}

interface Partition extends PartitionRef {
  write: Meter;
  read: Meter;
}

/** A request let in: what it was expected to consume, to settle once it is answered. */
export interface Admission {
  readonly expected: readonly Charge[];
}

const partitionId = (ref: PartitionRef) => JSON.stringify([ref.table, ref.index ?? null, ref.partitionKey]);

export class PartitionModel {
  private partitions = new Map<string, Partition>();
  private scans = new Map<string, number>();

  constructor(
    readonly enforcing: boolean,
    private readonly now: () => number = () => performance.timeOrigin + performance.now(),
  ) {}

  private partition(ref: PartitionRef): Partition {
    const id = partitionId(ref);
    let found = this.partitions.get(id);
    if (!found) {
      const now = this.now();
      found = {
        table: ref.table,
        index: ref.index,
        partitionKey: ref.partitionKey,
        write: new Meter(PARTITION_LIMITS.write, now),
        read: new Meter(PARTITION_LIMITS.read, now),
      };
      this.partitions.set(id, found);
    }
    return found;
  }

  /**
   * Lets a request in when every partition it is expected to touch has capacity (always, when not enforcing)
   * and takes the expected units; otherwise takes nothing, counts the refusal and returns the partition that
   * refused it.
   */
  admit(expected: readonly Charge[]): { admission: Admission } | { refusedBy: Charge } {
    if (this.enforcing) {
      const now = this.now();
      const full = expected.find((charge) => !this.partition(charge)[charge.access].hasCapacity(now));
      if (full) {
        this.partition(full)[full.access].throttled++;
        return { refusedBy: full };
      }
      for (const charge of expected) this.partition(charge)[charge.access].take(charge.units);
    }
    return { admission: { expected } };
  }

  /** Books what an admitted request consumed, in place of what it was expected to. */
  settle(admission: Admission, consumed: readonly Charge[]): void {
    const now = this.now();
    if (this.enforcing) {
      for (const charge of admission.expected) this.partition(charge)[charge.access].take(-charge.units);
      for (const charge of consumed) this.partition(charge)[charge.access].take(charge.units);
    }
    for (const charge of consumed) this.partition(charge)[charge.access].record(charge.units, now);
  }

  /** A Scan's read units (never refused: it is not one partition's). */
  recordScan(table: string, units: number): void {
    this.scans.set(table, (this.scans.get(table) ?? 0) + units);
  }

  report(): CapacityReport {
    const partitions = [...this.partitions.values()].map(
      (p): PartitionUsage => ({
        table: p.table,
        index: p.index ?? null,
        partitionKey: p.partitionKey,
        writeUnits: p.write.units,
        readUnits: p.read.units,
        peakWriteUnitsPerSecond: p.write.peak,
        peakReadUnitsPerSecond: p.read.peak,
        throttledWrites: p.write.throttled,
        throttledReads: p.read.throttled,
      }),
    );
    partitions.sort((a, b) => b.writeUnits - a.writeUnits || b.readUnits - a.readUnits);
    return {
      enforcing: this.enforcing,
      limits: PARTITION_LIMITS,
      partitions,
      scanReadUnits: Object.fromEntries(this.scans),
    };
  }

  /** Forgets every count (and every bucket: each key starts again with a full second of capacity). */
  reset(): void {
    this.partitions.clear();
    this.scans.clear();
  }
}

/**
 * The least time AWS's per-partition limits allow for the work counted in `partitions`: the busiest
 * partition's units over its limit (writes and reads of a partition have separate limits), in seconds.
 */
export function floorSeconds(partitions: readonly PartitionUsage[]): {
  seconds: number;
  partition?: PartitionUsage;
  access?: Access;
} {
  let floor: ReturnType<typeof floorSeconds> = { seconds: 0 };
  for (const partition of partitions) {
    for (const access of ['write', 'read'] as const) {
      const seconds =
        (access === 'write' ? partition.writeUnits : partition.readUnits) / PARTITION_LIMITS[access];
      if (seconds > floor.seconds) floor = { seconds, partition, access };
    }
  }
  return floor;
}
