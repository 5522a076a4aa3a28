import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { routeKeys } from '../functions/data/routes';
import type { PartitionUsage } from '../local/aws-proxy/dynamodb-partitions';
import { consumedBetween, partitionFloor, partitionReport } from './partitions';
import { benchRoute, countOf, type RouteShape } from './route-body';
import { type Context, importRoute, summary } from './route-import-pipeline';
import { routePartitionsOf } from './route-import-raw';
import type { StackInfo } from './runtime';
import { round } from './stats';

/**
 * The route_import bench's route of the largest size the service takes (docs/api.md §9): 2,000 waypoints and
 * 50,000 items, imported (through an upload link: its body is over the POST's 5 MB) and deleted through the
 * service with the local endpoint's partition model counting, for the floor AWS's per-partition limits put
 * under each. Measured, not scaled from a smaller route: the route's rows are cut into shards of bounded
 * write units (functions/data/route-shards.ts), so the floor does not grow with the route.
 */
export const FULL_SHAPE: RouteShape = { waypoints: 2000, invoicesPerWaypoint: 5, itemsPerInvoice: 5 };
const DELETION_TIMEOUT_MS = 900_000;
const DELETION_POLL_MS = 250;

/** What the partition model counted in one phase: its floor and the units of the route's own partitions. */
function phaseFloor(partitions: PartitionUsage[], routePartitions: readonly string[]) {
  const [routePk] = routePartitions;
  const isShard = (p: PartitionUsage) =>
    p.index === null && p.partitionKey !== routePk && routePartitions.includes(p.partitionKey);
  const describe = (p: PartitionUsage) =>
    p.index !== null
      ? 'an index'
      : p.partitionKey === routePk
        ? "the route's partition (header, waypoints, the first shard of its invoice and item rows)"
        : isShard(p)
          ? 'a shard of its invoice and item rows'
          : p.partitionKey.startsWith('CLAIM#')
            ? 'an id claim'
            : 'bookkeeping';
  const own = partitions.filter((p) => p.index === null && (p.partitionKey === routePk || isShard(p)));
  return {
    ...partitionFloor(partitions, describe),
    route_partitions: own.map((p) => ({
      partition_key: p.partitionKey,
      write_units: round(p.writeUnits),
      read_units: round(p.readUnits),
    })),
  };
}

/** Imports the full-size route, then deletes it; undefined when the runtime runs without the partition model. */
export async function fullSizeRouteFloors(context: Context, stack: StackInfo, routeId: string) {
  const { api, accountId, dcId, raw, log } = context;
  const counts = countOf(FULL_SHAPE);
  const before = await partitionReport(stack);
  if (!before) return undefined;
  log(`importing ${routeId} (${counts.items} items, ${counts.waypoints} waypoints) through an upload link`);
  const run = await importRoute(context, benchRoute(routeId, FULL_SHAPE), { upload: true });
  const imported = await partitionReport(stack);
  const header = await raw.get(routeKeys.route(accountId, routeId));
  if (!header) throw new Error(`${routeId} has no header`);
  const partitions = routePartitionsOf(context, routeId, header);
  log(`  SUCCEEDED after ${round(run.post_to_succeeded_ms, 0)} ms; deleting it`);

  const t0 = performance.now();
  const deleted = await api.delete(`/dcs/${encodeURIComponent(dcId)}/routes/${encodeURIComponent(routeId)}`);
  if (deleted.status !== 200)
    throw new Error(`DELETE answered ${deleted.status}: ${JSON.stringify(deleted.body).slice(0, 300)}`);
  // The header goes last, once the deletion worker removed every row and freed every id.
  while (await raw.get(routeKeys.route(accountId, routeId))) {
    context.abort.throwIfAborted();
    if (performance.now() - t0 > DELETION_TIMEOUT_MS)
      throw new Error(`${routeId} still has its header ${DELETION_TIMEOUT_MS} ms after its DELETE`);
    await sleep(DELETION_POLL_MS);
  }
  const deletionMs = performance.now() - t0;
  const after = await partitionReport(stack);
  if (!imported || !after) throw new Error('the partition model stopped reporting');
  const importFloor = phaseFloor(consumedBetween(before, imported), partitions);
  const deletionFloor = phaseFloor(consumedBetween(imported, after), partitions);
  log(
    `  deleted after ${round(deletionMs, 0)} ms; floors: import ${importFloor.aws_floor_seconds} s, ` +
      `deletion ${deletionFloor.aws_floor_seconds} s`,
  );
  return {
    route: { id: routeId, ...counts, shape: FULL_SHAPE, row_shards: partitions.length },
    import: { ...summary(run), partitions: importFloor },
    deletion: { delete_to_header_gone_ms: round(deletionMs), partitions: deletionFloor },
    aws_floor_seconds: Math.max(importFloor.aws_floor_seconds, deletionFloor.aws_floor_seconds),
    note:
      "counted by the local endpoint's partition model (AWS's rules) while the service imported the route (upload " +
      'link to SUCCEEDED) and deleted it (DELETE to the header gone, the deletion worker included): each ' +
      "phase's aws_floor_seconds is its busiest partition key's units over the per-key limit, the least time it " +
      "takes on AWS however fast the rest is; route_partitions lists the route's own partition keys",
  };
}
