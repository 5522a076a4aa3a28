import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ROUTE_PAGE_SIZES } from '../functions/api/routes/index';
import { putEventItem } from '../functions/data/events';
import { importKeys } from '../functions/data/imports';
import { ROUTE_ROW_PREFIX, routeKeys } from '../functions/data/routes';
import { configure } from '../functions/shared/config';
import type { PartitionUsage } from '../local/aws-proxy/dynamodb-partitions';
import { RawTable, type WriteStats } from './dynamo';
import { type HandlerWarmResult, measureHandlerWarm, restProxyEvent } from './handler-warm';
import { ApiClient } from './http';
import { consumedBetween, partitionFloor, partitionReport } from './partitions';
import { benchRoute, claimsOf, countOf } from './route-body';
import { FULL_SHAPE, fullSizeRouteFloors } from './route-import-full';
import {
  type Context,
  type ImportRun,
  importRoute,
  POLL_MS,
  phases,
  ROW_WRITE_PARALLELISM,
  SHAPE,
  summary,
  WARMUP_SHAPE,
} from './route-import-pipeline';
import {
  CLAIM_WRITES,
  compareClaimWrites,
  copyStoredRows,
  type RawFullWrites,
  rawClaimAlternatives,
  rawFullWrites,
  routePartitionsOf,
  unitsBySize,
  writeSummary,
  writeUnits,
} from './route-import-raw';
import type { Scenario } from './scenario';
import { check, median, round } from './stats';
import type { GetInvoicesInput } from './warm/get-invoices';

const READ_RUNS = 3;
/** Reads of the whole route by each path in the in-process measurement (bench/handler-warm.ts), one at a time. */
const HANDLER_READ_RUNS = 9;
const IMPORT_RATIO_TARGET = 1.1;
const READ_RATIO_TARGET = 1.5;
const WRITE_UNITS_PER_ITEM_TARGET = 2.5;
const FULL_SIZE_FLOOR_TARGET_SECONDS = 30;

/**
 * One route of 25,000 items through the import pipeline of the local runtime (POST, SQS poller, worker,
 * status polling) against the raw work it must do (the POST's read of its ids, then its claims and rows at the
 * worker's parallelism), twice each in the order import, raw, raw, import (DynamoDB Local drifts over a run),
 * then GET .../invoices of that route against a paginated Query of its `I#` rows, on the same DynamoDB Local: the
 * check takes the function's bundle invoked in-process (bench/warm/get-invoices.ts), what it adds on AWS;
 * the read through the local runtime is reported beside it.
 */
export const routeImportScenario: Scenario = {
  name: 'route_import',
  async run({ demo: { stack, apiKey, accountId, dcId }, abort, log }) {
    configure({ TABLE_NAME: stack.table_name });
    const context: Context = {
      api: new ApiClient(stack.api_url, apiKey, 4),
      raw: new RawTable(stack, abort),
      accountId,
      dcId,
      routeKeys,
      abort,
      log,
    };
    const counts = countOf(SHAPE);
    const runId = randomBytes(4).toString('hex');
    // Same length for every id: the raw rows then have exactly the sizes of the imported ones.
    const routeId = `bench-imp-${runId}`;
    const details: Record<string, unknown> = {};
    const errorSamples: string[] = [];
    let errors = 0;
    let importRun: ImportRun | undefined;
    let rawItems: WriteStats | undefined;
    let rawFull: RawFullWrites | undefined;
    let importRun2: ImportRun | undefined;
    let rawFull2: RawFullWrites | undefined;
    let read: { api: number[]; raw: number[] } | undefined;
    let handlerRead: HandlerWarmResult | undefined;
    let partitions: ReturnType<typeof importPartitions> | undefined;
    let fullSize: Awaited<ReturnType<typeof fullSizeRouteFloors>>;
    try {
      log(`warm-up import (${countOf(WARMUP_SHAPE).items} items)`);
      const warmupRoute = benchRoute(`bench-wup-${runId}`, WARMUP_SHAPE);
      const warmup = await importRoute(context, warmupRoute, { probe: true });
      details.warmup_import = {
        items: countOf(WARMUP_SHAPE).items,
        ...summary(warmup),
        phases_ms: phases(warmup),
      };

      log(`importing ${routeId} (${counts.items} items), polling every ${POLL_MS} ms`);
      const usageBefore = await partitionReport(stack);
      importRun = await importRoute(context, benchRoute(routeId, SHAPE), { probe: true });
      const usageAfter = await partitionReport(stack);
      const header = await context.raw.get(routeKeys.route(accountId, routeId));
      if (!header) throw new Error(`${routeId} has no header`);
      // The partitions holding the route's rows (its shards), in the order the service reads them.
      const shards = routePartitionsOf(context, routeId, header);
      if (usageBefore && usageAfter) {
        partitions = importPartitions(consumedBetween(usageBefore, usageAfter), shards, counts.items);
        details.import_partitions = partitions;
      }
      details.import = {
        ...summary(importRun),
        phases_ms: phases(importRun),
        phases_note:
          'accept_post: the POST (validation, id check, S3, SQS); queue_load_parse_first_claims: until the ' +
          'first claim batch shows; claims: until the first row shows (rows start after every claim ' +
          'is taken); rows: until the last batches show; finish_and_status: the header + SUCCEEDED ' +
          `transaction and the next poll; each bound is late by up to one poll (${POLL_MS} ms + requests)`,
        progress_seen_ms_since_post: importRun.progress,
      };
      log(
        `  POST ${round(importRun.post_ms, 0)} ms, SUCCEEDED after ${round(importRun.post_to_succeeded_ms, 0)} ms`,
      );

      read = await compareReads(context, routeId, counts, shards);
      details.read = {
        api_get_invoices_ms: timings(read.api),
        raw_query_ms: timings(read.raw),
        runs: READ_RUNS,
        ratio: round(median(read.api) / median(read.raw), 3),
        note:
          'through the local runtime as deployed (gateway, authorizer, the function in its own environment, ' +
          'its reads signed and checked by the local endpoint), reported, not checked; one untimed warm-up of ' +
          'each first; runs interleaved api, raw / raw, api / ...',
      };

      log(
        `the handler's bundle in-process: ${HANDLER_READ_RUNS} reads of the route and raw Queries, interleaved`,
      );
      handlerRead = await measureHandlerWarm({
        functionName: 'routes/invoices',
        comparison: 'get-invoices',
        stack,
        input: getInvoicesInput(context, stack.table_name, routeId, counts, shards),
        runs: HANDLER_READ_RUNS,
        warmup: 1,
        abort,
      });
      details.read_in_process = handlerRead;
      log(`  handler p50 ${handlerRead.handler_ms.p50} ms, Query p50 ${handlerRead.raw_ms.p50} ms`);

      // The stored rows themselves, copied under another partition key of the same length: the same
      // attribute names and sizes as the rows the worker wrote.
      const stored = await copyStoredRows(context, routeId);
      const itemRows = stored.rows.filter((row) => row.entity === 'ITEM');
      if (itemRows.length !== counts.items)
        throw new Error(`the route holds ${itemRows.length} item rows, expected ${counts.items}`);
      const sizes = itemRows.map(stored.size);
      details.stored_rows = {
        item_attributes: Object.keys(itemRows[0] ?? {}).sort(),
        item_row_bytes: {
          min: Math.min(...sizes),
          mean: round(sizes.reduce((a, b) => a + b, 0) / sizes.length, 1),
          max: Math.max(...sizes),
        },
        note: 'approximate DynamoDB item size (names + values)',
      };

      log(`raw BatchWriteItem of ${counts.items} item rows, parallelism ${ROW_WRITE_PARALLELISM}`);
      rawItems = await context.raw.putAll(
        itemRows.map(stored.moveTo(`bench-raw-${runId}`)),
        ROW_WRITE_PARALLELISM,
      );
      details.raw_items_write = {
        ...writeSummary(rawItems),
        import_vs_raw_item_rows_ratio: round(importRun.post_to_succeeded_ms / rawItems.ms),
        note:
          'not a check (the former one): the item rows alone, without the claims, waypoint and invoice rows the ' +
          'import must write as well',
      };
      log(`  ${round(rawItems.ms, 0)} ms`);

      log(`the raw work of the import (claim check, claims, ${counts.rows} rows)`);
      rawFull = await rawFullWrites(context, stored, `bench-ful-${runId}`);
      details.raw_full_writes = {
        ...rawFull.summary,
        import_vs_raw_full_writes_ratio: round(importRun.post_to_succeeded_ms / rawFull.ms),
      };

      // The pair again, the other way round (raw, then import): DynamoDB Local's speed drifts over a run (the
      // table grows, the JVM warms up) by as much as the check's margin, so the check takes both pairs,
      // import, raw, raw, import, each half of the ratio centred on the same moment.
      log(`the raw work of the import, again (claim check, claims, ${counts.rows} rows)`);
      rawFull2 = await rawFullWrites(context, stored, `bench-fu2-${runId}`);
      log(`importing bench-im2-${runId} (${counts.items} items), again`);
      importRun2 = await importRoute(context, benchRoute(`bench-im2-${runId}`, SHAPE), { probe: true });
      log(
        `  POST ${round(importRun2.post_ms, 0)} ms, SUCCEEDED after ${round(importRun2.post_to_succeeded_ms, 0)} ms`,
      );
      details.second_pair = {
        raw_full_writes_ms: round(rawFull2.ms),
        raw_claims_ms: round(rawFull2.claims.ms),
        raw_rows_ms: round(rawFull2.rows.ms),
        import: { ...summary(importRun2), phases_ms: phases(importRun2) },
        import_vs_raw_full_writes_ratio: round(importRun2.post_to_succeeded_ms / rawFull2.ms),
        note: 'the raw work again, then a second import of a route of the same shape: the check sums both pairs',
      };

      log('raw claims as single conditional PutItems and as transactions of 100');
      const alternatives = await rawClaimAlternatives(context, runId);
      details.claims_inserts_vs_transactions_vs_single_puts = compareClaimWrites(
        rawFull.claims,
        alternatives,
      );

      // The import's own bookkeeping writes, sized from what it stored (they are not in the raw runs): the
      // POST's PENDING record (PutItem), then one transaction of the header, the record's SUCCEEDED update
      // and the ROUTE_CREATED event.
      const importRecord = await context.raw.get(importKeys.record(accountId, importRun.txid));
      if (!importRecord || !stored.header)
        throw new Error('the import record or the route header is missing');
      const event = putEventItem({
        accountId,
        dcId,
        routeId,
        type: 'ROUTE_CREATED',
        details: {
          route: {
            id: routeId,
            name: stored.header.name,
            start_time: stored.header.start_time,
            driver_id: stored.header.assigned_driver_id ?? null,
            waypoint_count: SHAPE.waypoints,
            is_active: stored.header.is_active ?? false,
          },
        },
        occurredAt: Date.now(),
      }).Put.Item;
      details.write_units = writeUnits({
        items: counts.items,
        claims: rawFull.claims,
        rows: rawFull.rows,
        rowsEstimate: stored.rows.reduce((total, row) => total + unitsBySize(row), 0),
        bookkeeping: {
          pending_import_put: unitsBySize(importRecord),
          finish_transaction_header:
            2 * unitsBySize(stored.header) +
            ['gsi1pk', 'gsi2pk'].filter((key) => stored.header?.[key] !== undefined).length *
              unitsBySize(stored.header),
          finish_transaction_import_update: 2 * unitsBySize(importRecord),
          finish_transaction_event: 2 * unitsBySize(event),
        },
      });

      // Last: a route twice the size loads DynamoDB Local with 100,000 more rows and claims.
      fullSize = await fullSizeRouteFloors(context, stack, `bench-max-${runId}`);
      if (fullSize) details.full_size_route = fullSize;
    } catch (error) {
      abort.throwIfAborted();
      errors++;
      errorSamples.push(error instanceof Error ? error.message : String(error));
      log(`route_import failed: ${errorSamples.at(-1)}`);
    } finally {
      context.api.close();
      context.raw.destroy();
    }
    return {
      description:
        `POST /dcs/{dc}/invoiced-routes of one route (${SHAPE.waypoints} waypoints x ${SHAPE.invoicesPerWaypoint} ` +
        `invoices x ${SHAPE.itemsPerInvoice} items = ${counts.items} items) until import-status answers ` +
        `SUCCEEDED, vs. the raw work it must do (twice each: import, raw, raw, import): the read of its ids, its ${claimsOf(benchRoute(routeId, SHAPE)).length} ` +
        `claims (${CLAIM_WRITES}), then its ` +
        `${counts.rows} rows (BatchWriteItem, 25 per request, parallelism ${ROW_WRITE_PARALLELISM}) into another ` +
        'partition; the same claims as single conditional PutItems and as TransactWriteItems of 100 (time and ' +
        "write units); the import's write " +
        'units per item and their on-demand price; then every page of GET /dcs/{dc}/routes/{id}/invoices vs. a ' +
        'paginated Query (ConsistentRead) of the same I# rows, through the local runtime and with the ' +
        "function's bundle in-process; same DynamoDB Local; last, a route of " +
        `${FULL_SHAPE.waypoints} waypoints and ${countOf(FULL_SHAPE).items} items imported through an upload ` +
        'link and deleted, the partition model counting, for the floors of both',
      route: {
        id: routeId,
        shape: `${SHAPE.waypoints} waypoints x ${SHAPE.invoicesPerWaypoint} invoices x ${SHAPE.itemsPerInvoice} items`,
        ...counts,
        claims: claimsOf(benchRoute(routeId, SHAPE)).length,
      },
      errors,
      ...(errorSamples.length ? { error_samples: errorSamples } : {}),
      ...details,
      checks: {
        import_vs_raw_full_writes_ratio: check(
          importRun && rawFull && importRun2 && rawFull2
            ? (importRun.post_to_succeeded_ms + importRun2.post_to_succeeded_ms) / (rawFull.ms + rawFull2.ms)
            : Number.NaN,
          '<=',
          IMPORT_RATIO_TARGET,
          `POST sent to SUCCEEDED seen (${POLL_MS} ms polling) / the raw work the import must do: the read of ` +
            `every id it claims (BatchGetItem, as the POST checks them), its claims (${CLAIM_WRITES}), ` +
            `then its ${counts.rows} waypoint, invoice and item rows (BatchWriteItem, parallelism ${ROW_WRITE_PARALLELISM}); ` +
            'two imports over two raw runs, in the order import, raw, raw, import',
        ),
        get_invoices_handler_warm_ratio: check(
          handlerRead?.ratio ?? Number.NaN,
          '<=',
          READ_RATIO_TARGET,
          `median of ${HANDLER_READ_RUNS}: every page of GET .../invoices (${counts.items} items), the routes/invoices ` +
            'bundle invoked warm in-process / paginated Query of the same I# rows from the same process, both on ' +
            'DynamoDB Local itself (bench/handler-warm.ts)',
        ),
        aws_floor_seconds_50k_items: check(
          fullSize?.aws_floor_seconds ?? Number.NaN,
          '<=',
          FULL_SIZE_FLOOR_TARGET_SECONDS,
          `the larger of the floors AWS's per-partition limits put under the import and under the deletion of a ` +
            `route of ${FULL_SHAPE.waypoints} waypoints and ${countOf(FULL_SHAPE).items} items, measured: the ` +
            "busiest partition key's units over its limit, as the local endpoint's partition model counted them " +
            '(full_size_route; BENCH_PARTITIONS=off: not measured)',
        ),
        write_units_per_item: check(
          partitions?.write_units_per_item ?? Number.NaN,
          '<=',
          WRITE_UNITS_PER_ITEM_TARGET,
          "every write unit the import took (table and indexes: claims, rows, bookkeeping), as the local endpoint's " +
            'partition model counted them from POST to SUCCEEDED, over the imported items (BENCH_PARTITIONS=off: not measured)',
        ),
      },
    };
  },
};

/**
 * The import under AWS's per-partition limits, from what the local endpoint counted while it ran (POST to
 * SUCCEEDED, status polls included): the floor the busiest partition key puts under it, and the write units
 * it took per imported item, by kind of partition. `routePartitions`: the route's own partition, then the
 * other shards of its invoice and item rows.
 */
function importPartitions(partitions: PartitionUsage[], routePartitions: readonly string[], items: number) {
  const kindOf = (p: PartitionUsage) =>
    p.index !== null
      ? 'indexes'
      : routePartitions.includes(p.partitionKey)
        ? 'route'
        : p.partitionKey.startsWith('CLAIM#')
          ? 'claims'
          : 'bookkeeping';
  const floor = partitionFloor(partitions, (p) =>
    p.partitionKey === routePartitions[0]
      ? "the route's partition (header, waypoints, the first shard of its invoice and item rows)"
      : kindOf(p) === 'route'
        ? 'a shard of its invoice and item rows'
        : kindOf(p),
  );
  const writeUnitsOf = (kind: string) =>
    partitions.filter((p) => kindOf(p) === kind).reduce((total, p) => total + p.writeUnits, 0);
  return {
    ...floor,
    route_partitions: routePartitions.map((pk) => ({
      partition_key: pk,
      write_units: round(partitions.find((p) => p.index === null && p.partitionKey === pk)?.writeUnits ?? 0),
    })),
    write_units_per_item: round(floor.write_units / items, 4),
    write_units_per_item_by_kind: Object.fromEntries(
      ['route', 'claims', 'indexes', 'bookkeeping'].map((kind) => [
        kind,
        round(writeUnitsOf(kind) / items, 4),
      ]),
    ),
    note:
      "counted by the local endpoint's partition model while the import ran (AWS's rules; writes sized from the " +
      "items before and after): aws_floor_seconds is the busiest partition key's units over its per-key limit " +
      '(1,000 write units a second), the least time the import takes on AWS however fast the rest is; ' +
      "route_partitions: the write units of the route's partition and of each other shard of its rows; " +
      'write_units_per_item counts every write unit (table and indexes) over the imported items',
  };
}

/** Median of GET .../invoices and of the raw paginated Query, interleaved, after one warm-up of each. */
async function compareReads(
  context: Context,
  routeId: string,
  counts: ReturnType<typeof countOf>,
  shards: string[],
): Promise<{ api: number[]; raw: number[] }> {
  const { api, raw, dcId } = context;
  const path = invoicesPath(dcId, routeId);
  const paths = {
    // Every page, as a client reads the route: an invoice cut by a page boundary shows on both pages.
    api: async () => {
      const invoiceIds = new Set<string>();
      let items = 0;
      let nextToken: string | undefined;
      do {
        const query = `?limit=${ROUTE_PAGE_SIZES.invoiceRows.maxLimit}${nextToken ? `&next_token=${nextToken}` : ''}`;
        const { status, body } = await api.get(`${path}${query}`);
        const data = (
          body as { data?: { invoices?: { id: string; items?: unknown[] }[]; next_token?: string } }
        )?.data;
        if (status !== 200 || !data?.invoices)
          throw new Error(`GET invoices answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
        for (const invoice of data.invoices) {
          invoiceIds.add(invoice.id);
          items += invoice.items?.length ?? 0;
        }
        nextToken = data.next_token;
      } while (nextToken);
      if (invoiceIds.size !== counts.invoices || items !== counts.items)
        throw new Error(`GET invoices returned ${invoiceIds.size} invoices with ${items} items`);
    },
    // Each shard of the route's I# rows in turn, as the service reads them.
    raw: async () => {
      let rows = 0;
      for (const pk of shards) {
        const read = await raw.queryAll({
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': ROUTE_ROW_PREFIX.invoiceOrItem },
          ConsistentRead: true,
        });
        rows += read.rows.length;
      }
      if (rows !== counts.invoices + counts.items) throw new Error(`the raw Query returned ${rows} rows`);
    },
  };
  const timed = async (name: keyof typeof paths) => {
    context.abort.throwIfAborted();
    const t0 = performance.now();
    await paths[name]();
    return performance.now() - t0;
  };
  context.log(`reading the route: 1 warm-up + ${READ_RUNS} runs of each, interleaved`);
  await timed('api');
  await timed('raw');
  const times = { api: [] as number[], raw: [] as number[] };
  for (let run = 0; run < READ_RUNS; run++) {
    const order: (keyof typeof paths)[] = run % 2 === 0 ? ['api', 'raw'] : ['raw', 'api'];
    for (const name of order) times[name].push(await timed(name));
  }
  context.log(
    `  GET invoices median ${round(median(times.api), 0)} ms, Query ${round(median(times.raw), 0)} ms`,
  );
  return times;
}

function timings(values: readonly number[]) {
  return {
    runs: values.map((ms) => round(ms)),
    median: round(median(values)),
    min: round(Math.min(...values)),
  };
}

/** The path of a route's invoices. */
const invoicesPath = (dcId: string, routeId: string) =>
  `/dcs/${encodeURIComponent(dcId)}/routes/${encodeURIComponent(routeId)}/invoices`;

/** The in-process read's input: the first page's event, and the shards the raw Query reads (bench/warm/get-invoices.ts). */
function getInvoicesInput(
  context: Context,
  table: string,
  routeId: string,
  counts: ReturnType<typeof countOf>,
  shards: string[],
): GetInvoicesInput {
  const { accountId, dcId } = context;
  return {
    event: restProxyEvent({
      method: 'GET',
      resource: '/dcs/{dc_id}/routes/{route_id}/invoices',
      path: invoicesPath(dcId, routeId),
      pathParameters: { dc_id: dcId, route_id: routeId },
      authorizer: { account_id: accountId, dc_ids: JSON.stringify([dcId]), principalId: accountId },
    }),
    limit: ROUTE_PAGE_SIZES.invoiceRows.maxLimit,
    invoices: counts.invoices,
    items: counts.items,
    table,
    partitions: shards,
    prefix: ROUTE_ROW_PREFIX.invoiceOrItem,
  };
}
