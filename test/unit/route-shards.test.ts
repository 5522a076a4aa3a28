import { describe, expect, it } from 'vitest';
import type { Item } from '../../functions/data/client';
import {
  interleavedByPartition,
  invoiceRowKey,
  isRowPartitionOf,
  ROW_SHARD_WRITE_UNITS,
  rowShardsOf,
  shardPartitionsBetween,
  splitRouteRows,
} from '../../functions/data/route-shards';
import { routeKeys } from '../../functions/data/routes';

const PK = routeKeys.partition('acc', 'R-1');
/** A row of about `kb` KB (its JSON), under sort key `sk` in the route's partition. */
const row = (sk: string, kb: number): Item => ({ pk: PK, sk, filler: 'x'.repeat(kb * 1024 - 100) });
const itemRows = (count: number, kb: number) =>
  Array.from({ length: count }, (_, n) => row(routeKeys.itemSk(Math.floor(n / 100), 0, n % 100), kb));

describe('route row shards', () => {
  it('keep a small route in its partition: no shard starts', () => {
    const rows = [row('WP#00000', 1), ...itemRows(100, 1)];
    const { rows: placed, shards } = splitRouteRows('acc', 'R-1', rows);
    expect(shards.starts).toEqual([]);
    expect(placed).toEqual(rows);
  });

  it('cut I# rows in sort key order where a shard would pass its write units, the route partition counting its waypoints first', () => {
    // 2,000 waypoint rows of 1 unit, then 20,000 item rows of 1 unit: 6,000 of them fit the route's partition.
    const waypoints = Array.from({ length: 2000 }, (_, w) => row(`WP#${String(w).padStart(5, '0')}`, 1));
    const items = itemRows(20_000, 1);
    const { rows, shards } = splitRouteRows('acc', 'R-1', [...waypoints, ...items]);
    expect(shards.starts).toEqual([items[6000]?.sk, items[14_000]?.sk]);
    const byPartition = new Map<string, number>();
    for (const placed of rows) byPartition.set(placed.pk, (byPartition.get(placed.pk) ?? 0) + 1);
    expect([...byPartition.entries()]).toEqual([
      [PK, 8000],
      [routeKeys.rowShard('acc', 'R-1', 1), 8000],
      [routeKeys.rowShard('acc', 'R-1', 2), 6000],
    ]);
    expect(rows.filter((placed) => placed.sk.startsWith('WP#')).every((placed) => placed.pk === PK)).toBe(
      true,
    );
  });

  it('bound a shard by units, not rows: heavy rows make more, smaller shards', () => {
    const { shards } = splitRouteRows('acc', 'R-1', itemRows(1000, 20));
    expect(shards.starts).toHaveLength(Math.ceil((1000 * 20) / ROW_SHARD_WRITE_UNITS) - 1);
  });

  it('key a row by the shard whose range holds its sort key, and list the shards a range meets in order', () => {
    const shards = rowShardsOf({
      accountId: 'acc',
      routeId: 'R-1',
      rowShardStarts: ['I#00010#0000', 'I#00020#0003'],
    });
    expect(invoiceRowKey(shards, 'I#00009#0004#00001').pk).toBe(PK);
    expect(invoiceRowKey(shards, 'I#00010#0000').pk).toBe(routeKeys.rowShard('acc', 'R-1', 1));
    expect(invoiceRowKey(shards, 'I#00020#0002#00099').pk).toBe(routeKeys.rowShard('acc', 'R-1', 1));
    expect(invoiceRowKey(shards, 'I#00031#0000').pk).toBe(routeKeys.rowShard('acc', 'R-1', 2));
    // Waypoint 20's rows straddle shards 1 and 2; waypoint 5's are all in the route's partition.
    expect(shardPartitionsBetween(shards, routeKeys.invoiceRowsOf(20), routeKeys.invoiceRowsOf(21))).toEqual([
      routeKeys.rowShard('acc', 'R-1', 1),
      routeKeys.rowShard('acc', 'R-1', 2),
    ]);
    expect(shardPartitionsBetween(shards, routeKeys.invoiceRowsOf(5), routeKeys.invoiceRowsOf(6))).toEqual([
      PK,
    ]);
  });

  it("name a shard's partition so that no route id makes two keys alike", () => {
    // A route id ending in `#<digits>` cannot make another route's shard key: the shard number comes last.
    expect(routeKeys.rowShard('acc', 'a#1', 2)).not.toBe(routeKeys.rowShard('acc', 'a', 12));
    expect(routeKeys.rowShard('acc', 'R-1', 1).startsWith('ROUTE#')).toBe(false);
  });

  it("tell the route's own row partitions by their form alone, never another route's or account's", () => {
    expect(isRowPartitionOf('acc', 'R-1', routeKeys.partition('acc', 'R-1'))).toBe(true);
    expect(isRowPartitionOf('acc', 'R-1', routeKeys.rowShard('acc', 'R-1', 1))).toBe(true);
    expect(isRowPartitionOf('acc', 'R-1', routeKeys.rowShard('acc', 'R-1', 37))).toBe(true);
    expect(isRowPartitionOf('acc', 'R-1', routeKeys.rowShard('acc', 'R-1', 0))).toBe(false);
    expect(isRowPartitionOf('acc', 'a', routeKeys.rowShard('acc', 'a#1', 2))).toBe(false);
    expect(isRowPartitionOf('acc', 'a#1', routeKeys.rowShard('acc', 'a', 12))).toBe(false);
    expect(isRowPartitionOf('acc', 'R-1', routeKeys.rowShard('other', 'R-1', 1))).toBe(false);
    expect(isRowPartitionOf('acc', 'R-1', routeKeys.partition('other', 'R-1'))).toBe(false);
    expect(isRowPartitionOf('acc', 'R-1', `${routeKeys.rowShard('acc', 'R-1', 1)}#2`)).toBe(false);
  });

  it('take turns between partitions when writing, each keeping its own order', () => {
    const items = [
      { pk: 'A', sk: '1' },
      { pk: 'A', sk: '2' },
      { pk: 'A', sk: '3' },
      { pk: 'B', sk: '1' },
      { pk: 'C', sk: '1' },
      { pk: 'C', sk: '2' },
    ];
    expect(interleavedByPartition(items).map((item) => `${item.pk}${item.sk}`)).toEqual([
      'A1',
      'B1',
      'C1',
      'A2',
      'C2',
      'A3',
    ]);
  });
});
