import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ROUTE_PAGE_SIZES } from '../functions/endpoints/routes';
import { chunks, itemSize, type Key, keyString, RawTable, type Row, sleep, type WriteStats } from './dynamo';
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
const POLL_MS = 50;
const IMPORT_TIMEOUT_MS = 180_000;
const READ_RUNS = 3;
const IMPORT_RATIO_TARGET = 1.5;
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
    process.env.TABLE_NAME ??= stack.table_name;
    const { routeKeys, ROUTE_ROW_PREFIX } = await import('../functions/data/routes');
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
      details.raw_items_write = writeSummary(rawItems);
      log(`  ${round(rawItems.ms, 0)} ms`);

      if (process.env.BENCH_IMPORT_FULL_RAW !== '0') {
        log(`raw writes of everything the import writes (${counts.rows} rows, claims)`);
        details.raw_full_writes = await rawFullWrites(
          context,
          stored,
          `bench-ful-${runId}`,
          importRun.post_to_succeeded_ms,
        );
      }
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
        `SUCCEEDED, vs. BatchWriteItem of the same ${counts.items} item rows (25 per request, parallelism ` +
        `${ROW_WRITE_PARALLELISM}) into another partition; then every page of GET /dcs/{dc}/routes/{id}/invoices vs. a ` +
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
        import_vs_raw_write_ratio: check(
          importRun && rawItems ? importRun.post_to_succeeded_ms / rawItems.ms : Number.NaN,
          '<=',
          IMPORT_RATIO_TARGET,
          `POST sent to SUCCEEDED seen (${POLL_MS} ms polling) / raw BatchWriteItem of the ${counts.items} ` +
            `item rows at parallelism ${ROW_WRITE_PARALLELISM}`,
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
    size: itemSize,
    moveTo(otherPk: string) {
      if (otherPk.length !== pk.length)
        throw new Error('the raw partition key must be as long as the route one');
      return (row: Row): Row => ({ ...row, pk: otherPk });
    },
  };
}

/**
 * For transparency: every write the worker makes, raw. Its claims (one conditional put per id, 100 per
 * TransactWriteItems, CLAIM_PARALLELISM in flight) for the ids of a route of the same shape and id length,
 * then all its rows (waypoints, invoices, items) with BatchWriteItem at ROW_WRITE_PARALLELISM.
 */
async function rawFullWrites(
  context: Context,
  stored: Awaited<ReturnType<typeof copyStoredRows>>,
  rawRouteId: string,
  importMs: number,
) {
  const route = benchRoute(rawRouteId, SHAPE);
  const txid = `imp_${randomBytes(16).toString('base64url')}`;
  const claimRows = claimsOf(route).map((claim) => ({
    ...claimKey(context.accountId, claim),
    entity: 'CLAIM',
    kind: claim.kind,
    id: claim.id,
    route_id: route.id,
    txid,
  }));
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
  context.log(`  claims ${round(claims.ms, 0)} ms`);
  const rows = await context.raw.putAll(
    stored.rows.map(stored.moveTo(context.routeKeys.route(context.accountId, rawRouteId).pk)),
    ROW_WRITE_PARALLELISM,
  );
  context.log(`  rows ${round(rows.ms, 0)} ms`);
  return {
    ms: round(claims.ms + rows.ms),
    import_vs_raw_full_writes_ratio: round(importMs / (claims.ms + rows.ms)),
    claim_check_read: {
      ms: round(check.ms),
      keys: claimRows.length,
      per_request: 100,
      parallelism: ROW_WRITE_PARALLELISM,
      note: 'BatchGetItem of every claim key, as POST checks them before accepting',
    },
    claims: {
      ...writeSummary(claims),
      per_transaction: CLAIMS_PER_TRANSACTION,
      parallelism: CLAIM_PARALLELISM,
    },
    rows: { ...writeSummary(rows), parallelism: ROW_WRITE_PARALLELISM },
    note:
      'not a check: the raw cost of the writes the worker makes (claims, then rows, one after the other: ms); ' +
      'the ratio is POST-to-SUCCEEDED over that',
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
