import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROUTE_PAGE_SIZES } from '../functions/api/routes/index';
import { putEventItem } from '../functions/data/events';
import { importKeys } from '../functions/data/imports';
import { ROUTE_ROW_PREFIX, routeKeys } from '../functions/data/routes';
import { configure } from '../functions/shared/config';
import { chunks } from '../functions/shared/parallel';
import { itemSize, type Key, keyString, RawTable, type Row, type WriteStats } from './dynamo';
import { ApiClient } from './http';
import { type BenchRoute, benchRoute, claimKey, claimsOf, countOf, type RouteShape } from './route-body';
import type { Scenario, ScenarioContext, ScenarioResult } from './scenario';
import { check, round } from './stats';

/** The route the issue asks for: 500 waypoints x 5 invoices x 10 items = 25,000 items. */
const SHAPE: RouteShape = { waypoints: 500, invoicesPerWaypoint: 5, itemsPerInvoice: 10 };
/** A tenth of it, imported first: loads the worker and warms every DynamoDB Local code path it uses. */
const WARMUP_SHAPE: RouteShape = { waypoints: 50, invoicesPerWaypoint: 5, itemsPerInvoice: 10 };
/** The worker's own settings: putAll (functions/data/client.ts) and takeClaims (functions/data/claims.ts). */
const ROW_WRITE_PARALLELISM = 8;
const CLAIMS_PER_TRANSACTION = 100;
const CLAIM_PARALLELISM = 4;
/**
 * The alternative the raw baseline measures for the claims: one conditional PutItem per id. 32 in flight keeps
 * the requests to DynamoDB at about the worker's (4 transactions of 100 puts) without one socket per put.
 */
const SINGLE_PUT_PARALLELISM = 32;
const POLL_MS = 50;
const IMPORT_TIMEOUT_MS = 180_000;
const READ_RUNS = 3;
const IMPORT_RATIO_TARGET = 1.1;
/**
 * DynamoDB on-demand, us-east-1, standard table class: USD per million write request units (the price since
 * AWS's on-demand reduction of 1 November 2024; assumed for 2026-11-22, not looked up live).
 */
const WRITE_REQUEST_UNIT_USD_PER_MILLION = 0.625;
const PRICE_NOTE =
  'us-east-1 on-demand, standard table class: $0.625 per million write request units (price in effect since ' +
  '2024-11-01, assumed as of 2026-11-22, not checked against the live price list); write units only (no ' +
  'reads, storage, streams, S3 or SQS)';
const READ_RATIO_TARGET = 1.5;

type RouteKeys = typeof import('../functions/data/routes')['routeKeys'];

interface Context {
  api: ApiClient;
  raw: RawTable;
  accountId: string;
  dcId: string;
  routeKeys: RouteKeys;
  abort: AbortSignal;
  log(message: string): void;
}

/** When each stage of the import first showed in the table, in ms since the POST was sent. */
interface Progress {
  /** The route's own claim: the worker's first claim transaction committed. */
  first_claim_seen_ms: number | null;
  /** The first claim of each of the last CLAIM_PARALLELISM transactions: the claims are (about) done. */
  last_claims_seen_ms: number | null;
  /** The first row (WP#00000): the claims are all taken, the rows started. */
  first_row_seen_ms: number | null;
  /** The first row of each of the last ROW_WRITE_PARALLELISM batches: the rows are (about) written. */
  last_rows_seen_ms: number | null;
}

interface ImportRun {
  txid: string;
  body_bytes: number;
  post_ms: number;
  post_to_succeeded_ms: number;
  accepted_to_succeeded_ms: number;
  status_polls: number;
  progress?: Progress;
}

/**
 * One route of 25,000 items through the import pipeline of the local runtime (POST, SQS poller, worker,
 * status polling) against BatchWriteItem of the same item rows at the worker's parallelism, then GET
 * .../invoices of that route against a paginated Query of its `I#` rows, on the same DynamoDB Local.
 */
export const routeImportScenario: Scenario = {
  name: 'route_import',
  async run({ runtime, abort, log }: ScenarioContext): Promise<ScenarioResult> {
    const { stack, apiKey } = runtime;
    const { account_id: accountId, dc_id: dcId } = stack.demo;
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
    let read: { api: number[]; raw: number[] } | undefined;
    try {
      log(`warm-up import (${countOf(WARMUP_SHAPE).items} items)`);
      const warmupRoute = benchRoute(`bench-wup-${runId}`, WARMUP_SHAPE);
      const warmup = await importRoute(context, warmupRoute, WARMUP_SHAPE, { probe: true });
      details.warmup_import = {
        items: countOf(WARMUP_SHAPE).items,
        ...summary(warmup),
        phases_ms: phases(warmup),
      };

      log(`importing ${routeId} (${counts.items} items), polling every ${POLL_MS} ms`);
      importRun = await importRoute(context, benchRoute(routeId, SHAPE), SHAPE, { probe: true });
      details.import = {
        ...summary(importRun),
        phases_ms: phases(importRun),
        phases_note:
          'accept_post: the POST (validation, id check, S3, SQS); queue_load_parse_first_claims: until the ' +
          'first claim transaction shows; claims: until the first row shows (rows start after every claim ' +
          'is taken); rows: until the last batches show; finish_and_status: the header + SUCCEEDED ' +
          `transaction and the next poll; each bound is late by up to one poll (${POLL_MS} ms + requests)`,
        progress_seen_ms_since_post: importRun.progress,
      };
      log(
        `  POST ${round(importRun.post_ms, 0)} ms, SUCCEEDED after ${round(importRun.post_to_succeeded_ms, 0)} ms`,
      );

      read = await compareReads(context, routeId, counts, ROUTE_ROW_PREFIX.invoiceOrItem);
      details.read = {
        api_get_invoices_ms: timings(read.api),
        raw_query_ms: timings(read.raw),
        runs: READ_RUNS,
        note:
          'one untimed warm-up of each first; runs interleaved api, raw / raw, api / ...; the check uses the ' +
          'medians, min is the least disturbed run',
      };

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
        itemRows.map(stored.moveTo(routeKeys.route(accountId, `bench-raw-${runId}`).pk)),
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

      log(`raw writes of everything the import writes (${counts.rows} rows, claims)`);
      rawFull = await rawFullWrites(context, stored, `bench-ful-${runId}`);
      details.raw_full_writes = {
        ...rawFull.summary,
        import_vs_raw_full_writes_ratio: round(importRun.post_to_succeeded_ms / rawFull.ms),
      };

      log(`raw claims as single conditional PutItems, parallelism ${SINGLE_PUT_PARALLELISM}`);
      const singlePuts = await rawSinglePutClaims(context, `bench-sgl-${runId}`);
      details.claims_transactions_vs_single_puts = compareClaimWrites(rawFull.claims, singlePuts);

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
        singlePutClaims: singlePuts,
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
        `SUCCEEDED, vs. raw writes of everything it must write: its ${claimsOf(benchRoute(routeId, SHAPE)).length} ` +
        `claims (TransactWriteItems of ${CLAIMS_PER_TRANSACTION}, ${CLAIM_PARALLELISM} in flight), then its ` +
        `${counts.rows} rows (BatchWriteItem, 25 per request, parallelism ${ROW_WRITE_PARALLELISM}) into another ` +
        "partition; the same claims as single conditional PutItems (time and write units); the import's write " +
        'units per item and their on-demand price; then every page of GET /dcs/{dc}/routes/{id}/invoices vs. a ' +
        'paginated Query (ConsistentRead) of the same I# rows; same DynamoDB Local',
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
          importRun && rawFull ? importRun.post_to_succeeded_ms / rawFull.ms : Number.NaN,
          '<=',
          IMPORT_RATIO_TARGET,
          `POST sent to SUCCEEDED seen (${POLL_MS} ms polling) / raw writes of everything the import must ` +
            `write: its claims (TransactWriteItems of ${CLAIMS_PER_TRANSACTION}, ${CLAIM_PARALLELISM} in flight), ` +
            `then its ${counts.rows} waypoint, invoice and item rows (BatchWriteItem, parallelism ${ROW_WRITE_PARALLELISM})`,
        ),
        get_invoices_vs_raw_query_ratio: check(
          read ? median(read.api) / median(read.raw) : Number.NaN,
          '<=',
          READ_RATIO_TARGET,
          `median of ${READ_RUNS}: every page of GET .../invoices (${counts.items} items) / paginated Query of the I# rows`,
        ),
      },
    };
  },
};

function summary(run: ImportRun) {
  return {
    txid: run.txid,
    body_bytes: run.body_bytes,
    post_ms: round(run.post_ms),
    post_to_succeeded_ms: round(run.post_to_succeeded_ms),
    accepted_to_succeeded_ms: round(run.accepted_to_succeeded_ms),
    status_polls: run.status_polls,
  };
}

function writeSummary(stats: WriteStats) {
  return {
    ms: round(stats.ms),
    items: stats.items,
    requests: stats.requests,
    unprocessed_retries: stats.retries,
    items_per_s: round(stats.items / (stats.ms / 1000), 0),
    write_units: stats.units,
    ...(stats.reportedUnits !== stats.units ? { dynamodb_local_reported_units: stats.reportedUnits } : {}),
  };
}

/**
 * Where the import spent its time, from the progress seen in the table (each bound is late by up to one
 * poll interval plus one probe).
 */
function phases(run: ImportRun) {
  const p = run.progress;
  if (!p) return undefined;
  const between = (from: number | null, to: number | null) =>
    from === null || to === null ? null : round(to - from, 0);
  return {
    accept_post: round(run.post_ms, 0),
    queue_load_parse_first_claims: between(run.post_ms, p.first_claim_seen_ms),
    claims: between(p.first_claim_seen_ms, p.first_row_seen_ms),
    rows: between(p.first_row_seen_ms, p.last_rows_seen_ms),
    finish_and_status: between(p.last_rows_seen_ms, run.post_to_succeeded_ms),
  };
}

async function importRoute(
  context: Context,
  route: BenchRoute,
  shape: RouteShape,
  options: { probe?: boolean } = {},
): Promise<ImportRun> {
  const { api, dcId } = context;
  const body = Buffer.from(JSON.stringify({ route }), 'utf8');
  const probe = options.probe ? progressProbe(context, route, shape) : undefined;

  const t0 = performance.now();
  const accepted = await api.post(`/dcs/${encodeURIComponent(dcId)}/invoiced-routes`, body);
  const postMs = performance.now() - t0;
  const txid = (accepted.body as { data?: { txid?: unknown } } | undefined)?.data?.txid;
  if (accepted.status !== 202 || typeof txid !== 'string')
    throw new Error(`POST answered ${accepted.status}: ${JSON.stringify(accepted.body).slice(0, 300)}`);

  const statusPath = `/dcs/${encodeURIComponent(dcId)}/routes/import-status/${encodeURIComponent(txid)}`;
  let polls = 0;
  for (;;) {
    context.abort.throwIfAborted();
    const [status] = await Promise.all([api.get(statusPath), probe?.look(t0)]);
    polls++;
    const elapsed = performance.now() - t0;
    if (status.status === 200) {
      const data = (status.body as { data?: { status?: unknown; route_id?: unknown } }).data;
      if (data?.status !== 'SUCCEEDED' || data.route_id !== route.id)
        throw new Error(`import-status answered 200 with ${JSON.stringify(status.body).slice(0, 300)}`);
      return {
        txid,
        body_bytes: body.length,
        post_ms: postMs,
        post_to_succeeded_ms: elapsed,
        accepted_to_succeeded_ms: elapsed - postMs,
        status_polls: polls,
        progress: probe?.progress,
      };
    }
    if (status.status !== 202)
      throw new Error(
        `import ${txid} ended with ${status.status}: ${JSON.stringify(status.body).slice(0, 300)}`,
      );
    if (elapsed > IMPORT_TIMEOUT_MS) throw new Error(`import ${txid} still pending after ${elapsed} ms`);
    await sleep(POLL_MS);
  }
}

/**
 * Looks, with one small BatchGetItem per status poll, for the items that mark the worker's stages. The
 * claims and the rows are written in order by a fixed number of workers, so the first item of each of the
 * last `parallelism` requests shows (nearly always) that every earlier request is done as well.
 */
function progressProbe(context: Context, route: BenchRoute, shape: RouteShape) {
  const { accountId, routeKeys, raw } = context;
  const claimKeys = claimsOf(route).map((claim) => claimKey(accountId, claim));
  const rowKeys: Key[] = [];
  for (let w = 0; w < shape.waypoints; w++) {
    rowKeys.push(routeKeys.waypoint(accountId, route.id, w));
    for (let i = 0; i < shape.invoicesPerWaypoint; i++) {
      rowKeys.push(routeKeys.invoice(accountId, route.id, w, i));
      for (let t = 0; t < shape.itemsPerInvoice; t++)
        rowKeys.push(routeKeys.item(accountId, route.id, w, i, t));
    }
  }
  const heads = (keys: Key[], size: number, last: number) =>
    chunks(keys, size)
      .slice(-last)
      .map((chunk) => chunk[0] as Key);
  const markers: Record<keyof Progress, Key[]> = {
    first_claim_seen_ms: claimKeys.slice(0, 1),
    last_claims_seen_ms: heads(claimKeys, CLAIMS_PER_TRANSACTION, CLAIM_PARALLELISM),
    first_row_seen_ms: rowKeys.slice(0, 1),
    last_rows_seen_ms: heads(rowKeys, 25, ROW_WRITE_PARALLELISM),
  };
  const allKeys = Object.values(markers).flat();
  const progress: Progress = {
    first_claim_seen_ms: null,
    last_claims_seen_ms: null,
    first_row_seen_ms: null,
    last_rows_seen_ms: null,
  };
  return {
    progress,
    async look(t0: number): Promise<void> {
      if (progress.last_rows_seen_ms !== null) return;
      const found = await raw.existing(allKeys);
      const at = round(performance.now() - t0, 0);
      for (const [name, keys] of Object.entries(markers) as [keyof Progress, Key[]][])
        if (progress[name] === null && keys.every((key) => found.has(keyString(key)))) progress[name] = at;
    },
  };
}

/** Median of GET .../invoices and of the raw paginated Query, interleaved, after one warm-up of each. */
async function compareReads(
  context: Context,
  routeId: string,
  counts: ReturnType<typeof countOf>,
  prefix: string,
): Promise<{ api: number[]; raw: number[] }> {
  const { api, raw, accountId, dcId, routeKeys } = context;
  const path = `/dcs/${encodeURIComponent(dcId)}/routes/${encodeURIComponent(routeId)}/invoices`;
  const { pk } = routeKeys.route(accountId, routeId);
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
    raw: async () => {
      const { rows } = await raw.queryAll({
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
        ConsistentRead: true,
      });
      if (rows.length !== counts.invoices + counts.items)
        throw new Error(`the raw Query returned ${rows.length} rows`);
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

/** The route's stored rows but the header, read once, and how to move them under another partition key. */
async function copyStoredRows(context: Context, routeId: string) {
  const { pk } = context.routeKeys.route(context.accountId, routeId);
  const { rows } = await context.raw.queryAll({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pk },
    ConsistentRead: true,
  });
  return {
    rows: rows.filter((row) => row.sk !== 'ROUTE'),
    header: rows.find((row) => row.sk === 'ROUTE'),
    size: itemSize,
    moveTo(otherPk: string) {
      if (otherPk.length !== pk.length)
        throw new Error('the raw partition key must be as long as the route one');
      return (row: Row): Row => ({ ...row, pk: otherPk });
    },
  };
}

interface RawFullWrites {
  /** Claims then rows, one after the other. */
  ms: number;
  claims: WriteStats;
  rows: WriteStats;
  summary: Record<string, unknown>;
}

/** The claim items the worker writes for a route of the bench's shape with id `routeId`, held by `txid`. */
function claimRowsOf(context: Context, routeId: string, txid: string): Row[] {
  return claimsOf(benchRoute(routeId, SHAPE)).map((claim) => ({
    ...claimKey(context.accountId, claim),
    entity: 'CLAIM',
    kind: claim.kind,
    id: claim.id,
    route_id: routeId,
    txid,
  }));
}

const newTxid = () => `imp_${randomBytes(16).toString('base64url')}`;

/**
 * The check's baseline: every write the worker must make, raw. Its claims (one conditional put per id, 100
 * per TransactWriteItems, CLAIM_PARALLELISM in flight) for the ids of a route of the same shape and id
 * length, then all its rows (waypoints, invoices, items) with BatchWriteItem at ROW_WRITE_PARALLELISM.
 */
async function rawFullWrites(
  context: Context,
  stored: Awaited<ReturnType<typeof copyStoredRows>>,
  rawRouteId: string,
): Promise<RawFullWrites> {
  const txid = newTxid();
  const claimRows = claimRowsOf(context, rawRouteId, txid);
  // What the POST does before it accepts (functions/data/claims.ts findHeldClaims): none of them is held yet.
  const check = await context.raw.existingAll(
    claimRows.map((row) => ({ pk: row.pk, sk: row.sk })),
    ROW_WRITE_PARALLELISM,
  );
  if (check.found) throw new Error(`${check.found} claims of ${rawRouteId} exist before it was written`);
  context.log(`  claim check (BatchGetItem) ${round(check.ms, 0)} ms`);
  const claims = await context.raw.transactPutAll(claimRows, {
    perTransaction: CLAIMS_PER_TRANSACTION,
    parallelism: CLAIM_PARALLELISM,
    condition: 'attribute_not_exists(pk) OR txid = :txid',
    values: { ':txid': txid },
  });
  context.log(`  claims ${round(claims.ms, 0)} ms, ${claims.units} write units`);
  const rows = await context.raw.putAll(
    stored.rows.map(stored.moveTo(context.routeKeys.route(context.accountId, rawRouteId).pk)),
    ROW_WRITE_PARALLELISM,
  );
  context.log(`  rows ${round(rows.ms, 0)} ms, ${rows.units} write units`);
  return {
    ms: claims.ms + rows.ms,
    claims,
    rows,
    summary: {
      ms: round(claims.ms + rows.ms),
      claim_check_read: {
        ms: round(check.ms),
        keys: claimRows.length,
        per_request: 100,
        parallelism: ROW_WRITE_PARALLELISM,
        note: "not in the baseline's ms: BatchGetItem of every claim key, as POST checks them before accepting",
      },
      claims: {
        ...writeSummary(claims),
        per_transaction: CLAIMS_PER_TRANSACTION,
        parallelism: CLAIM_PARALLELISM,
      },
      rows: { ...writeSummary(rows), parallelism: ROW_WRITE_PARALLELISM },
      note:
        "the check's baseline: the writes the worker must make (claims, then rows, one after the other, as the " +
        "worker makes them: ms); the ratio is POST-to-SUCCEEDED over that. Leaves out the import's bookkeeping " +
        '(PENDING record, S3 body, SQS message, the final transaction) and the claim check read',
    },
  };
}

/** The same number of claims (another route id of the same length) as one conditional PutItem each. */
async function rawSinglePutClaims(context: Context, rawRouteId: string): Promise<WriteStats> {
  const txid = newTxid();
  const stats = await context.raw.conditionalPutAll(claimRowsOf(context, rawRouteId, txid), {
    parallelism: SINGLE_PUT_PARALLELISM,
    condition: 'attribute_not_exists(pk) OR txid = :txid',
    values: { ':txid': txid },
  });
  context.log(`  ${round(stats.ms, 0)} ms, ${stats.units} write units`);
  return stats;
}

/** Transactions of 100 claims (the worker's) against single conditional puts of as many claims. */
function compareClaimWrites(transactions: WriteStats, singles: WriteStats) {
  return {
    transactions: {
      ...writeSummary(transactions),
      per_transaction: CLAIMS_PER_TRANSACTION,
      parallelism: CLAIM_PARALLELISM,
      units_per_claim: round(transactions.units / transactions.items),
    },
    single_puts: {
      ...writeSummary(singles),
      parallelism: SINGLE_PUT_PARALLELISM,
      units_per_claim: round(singles.units / singles.items),
    },
    units_single_over_transactions: round(singles.units / transactions.units),
    ms_single_over_transactions: round(singles.ms / transactions.ms),
    // Units per claim x USD per million units = USD per million claims.
    usd_saved_per_million_claims_with_single_puts: round(
      (transactions.units / transactions.items - singles.units / singles.items) *
        WRITE_REQUEST_UNIT_USD_PER_MILLION,
    ),
    trade_off:
      'transactions: a conflicting id cancels its whole group of 100 with nothing written, at 2 units per ' +
      'claim; single puts: 1 unit per claim, but a conflict leaves the claims taken before it written, which ' +
      "the worker must release (it already releases an import's claims by txid on failure: releaseClaims " +
      'reads every claim and deletes its own, so a conflicting import costs a read and a delete per claim ' +
      'taken). Same result either way; only the cost of the rare conflicting import grows',
  };
}

/** Write units of one put of `row` on AWS's rules: one per started KB (DynamoDB's item size). */
const unitsBySize = (row: Row) => Math.ceil(itemSize(row) / 1024);

/**
 * The import's write units per imported item: claims and rows as DynamoDB Local reported them for the same
 * writes, raw; bookkeeping from the stored items' sizes (transaction items count twice); the header also
 * writes each global secondary index it carries keys for (projection ALL: its size again, once).
 */
function writeUnits(input: {
  items: number;
  claims: WriteStats;
  /** The same claims as single conditional puts: the alternative's price. */
  singlePutClaims: WriteStats;
  rows: WriteStats;
  rowsEstimate: number;
  bookkeeping: Record<string, number>;
}) {
  const bookkeeping = Object.values(input.bookkeeping).reduce((total, units) => total + units, 0);
  const total = input.claims.units + input.rows.units + bookkeeping;
  const perItem = (units: number) => round(units / input.items, 4);
  const usd = (units: number) => (units * WRITE_REQUEST_UNIT_USD_PER_MILLION) / 1e6;
  return {
    imported_items: input.items,
    total_units: total,
    claims_units: input.claims.units,
    rows_units: input.rows.units,
    rows_units_by_size_estimate: input.rowsEstimate,
    bookkeeping_units: bookkeeping,
    bookkeeping: input.bookkeeping,
    per_item: {
      total: perItem(total),
      claims: perItem(input.claims.units),
      rows: perItem(input.rows.units),
      bookkeeping: perItem(bookkeeping),
    },
    usd_per_import: round(usd(total), 6),
    usd_per_million_items: round((usd(total) / input.items) * 1e6, 2),
    usd_per_million_items_claims_as_single_puts: round(
      (usd(total - input.claims.units + input.singlePutClaims.units) / input.items) * 1e6,
      2,
    ),
    price: PRICE_NOTE,
    note:
      'rows: the ConsumedCapacity (TOTAL) DynamoDB Local returned for the raw BatchWriteItems of the same rows ' +
      '(rows_units_by_size_estimate cross-checks it from their sizes); claims: 2 per started KB of each claim ' +
      'item from its size, as AWS charges transactional writes (DynamoDB Local reports 2 units per ' +
      'TransactWriteItems whatever it holds, shown as dynamodb_local_reported_units); ' +
      'bookkeeping: from the stored sizes (PENDING import record PutItem; the final transaction of header, ' +
      'import record update and ROUTE_CREATED event at 2 per KB; header GSI writes in the header entry). ' +
      "The claims-as-single-puts price takes the single puts' units (ConsumedCapacity) instead of the claims'",
  };
}

function timings(values: readonly number[]) {
  return {
    runs: values.map((ms) => round(ms)),
    median: round(median(values)),
    min: round(Math.min(...values)),
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
