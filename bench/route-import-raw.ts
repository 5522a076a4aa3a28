import { randomBytes } from 'node:crypto';
import { claimItem } from '../functions/data/claims';
import { rowShardsOf, shardPartitions } from '../functions/data/route-shards';
import { trackingLookupItems } from '../functions/data/tracking-links';
import { itemSize, type Row, type WriteStats } from './dynamo';
import { benchRoute, claimsOf } from './route-body';
import {
  CLAIM_PARALLELISM,
  CLAIMS_PER_BATCH,
  type Context,
  ROW_WRITE_PARALLELISM,
  SHAPE,
} from './route-import-pipeline';
import { round } from './stats';

/**
 * The route_import bench's raw baselines (bench/route-import.ts): the same writes as the import, made
 * directly on DynamoDB Local, and the import's write units and their price.
 */

/** How the worker writes its claims (functions/data/claims.ts takeClaims), in the bench's descriptions. */
export const CLAIM_WRITES = `PartiQL INSERTs, ${CLAIMS_PER_BATCH} per BatchExecuteStatement, ${CLAIM_PARALLELISM} in flight`;

/**
 * The alternatives the raw baseline measures for the claims: one conditional PutItem per id (32 in flight),
 * and the former design, TransactWriteItems of 100 conditional puts, 4 in flight.
 */
export const SINGLE_PUT_PARALLELISM = 32;
const CLAIMS_PER_TRANSACTION = 100;
const TRANSACTION_PARALLELISM = 4;
/**
 * DynamoDB on-demand, us-east-1, standard table class: USD per million write request units (the price since
 * AWS's on-demand reduction of 1 November 2024; assumed for 2026-11-22, not looked up live).
 */
const WRITE_REQUEST_UNIT_USD_PER_MILLION = 0.625;
const PRICE_NOTE =
  'us-east-1 on-demand, standard table class: $0.625 per million write request units (price in effect since ' +
  '2024-11-01, assumed as of 2026-11-22, not checked against the live price list); write units only (no ' +
  'reads, storage, streams, S3 or SQS)';

export function writeSummary(stats: WriteStats) {
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

/** Every item of each partition, in order. */
async function queryPartitions(context: Context, partitions: readonly string[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const pk of partitions) {
    const read = await context.raw.queryAll({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
    });
    rows.push(...read.rows);
  }
  return rows;
}

/** The partitions of the route's rows (its own, then its other shards'), as its header records them. */
export const routePartitionsOf = (context: Context, routeId: string, header: Row) =>
  shardPartitions(
    rowShardsOf({
      accountId: context.accountId,
      routeId,
      rowShardStarts: header.row_shard_starts as string[] | undefined,
    }),
  );

/**
 * The route's stored rows but the header (its partition's and its other shards'), read once, and how to move
 * them under another route id of the same length (each in the same shard); and its waypoints' tracking
 * links, which live in partitions of their own, as the import wrote them.
 */
export async function copyStoredRows(context: Context, routeId: string) {
  const { pk } = context.routeKeys.route(context.accountId, routeId);
  const header = await context.raw.get({ pk, sk: 'ROUTE' });
  if (!header?.tracking_key) throw new Error(`route ${routeId} has no header with a tracking key`);
  const rows = await queryPartitions(context, routePartitionsOf(context, routeId, header));
  const trackingLinks = trackingLookupItems(
    {
      accountId: context.accountId,
      dcId: context.dcId,
      routeId,
      importTxid: header.import_txid as string,
      trackingKey: header.tracking_key as string,
    },
    header.waypoint_ids as string[],
  );
  return {
    rows: rows.filter((row) => row.sk !== 'ROUTE'),
    partitions: routePartitionsOf(context, routeId, header),
    header,
    trackingLinks,
    size: itemSize,
    moveTo(otherRouteId: string) {
      if (otherRouteId.length !== routeId.length)
        throw new Error('the raw route id must be as long as the route one');
      const from = `${context.accountId}/${routeId}`;
      const to = `${context.accountId}/${otherRouteId}`;
      return (row: Row): Row => ({ ...row, pk: (row.pk as string).replace(from, to) });
    },
  };
}

export interface RawFullWrites {
  /** The claim check's read, then the claims, then the rows, one after the other. */
  ms: number;
  claims: WriteStats;
  rows: WriteStats;
  summary: Record<string, unknown>;
}

/** The claim items the worker writes for a route of the bench's shape with id `routeId`, held by `txid`. */
function claimRowsOf(context: Context, routeId: string, txid: string): Row[] {
  return claimsOf(benchRoute(routeId, SHAPE)).map((claim) =>
    claimItem(context.accountId, claim, { txid, routeId }),
  );
}

const newTxid = () => `imp_${randomBytes(16).toString('base64url')}`;

/**
 * The check's baseline: the raw work the import must do. The read of every id it claims, as the POST checks
 * them before accepting (its 3005-3009 answers), then every write the worker must make: its claims (one
 * PartiQL INSERT per id, CLAIMS_PER_BATCH per BatchExecuteStatement, CLAIM_PARALLELISM in flight) for the ids
 * of a route of the same shape and id length, then all its rows (the waypoints' tracking links, waypoints,
 * invoices, items) with BatchWriteItem at ROW_WRITE_PARALLELISM.
 */
export async function rawFullWrites(
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
  const claims = await context.raw.insertAll(claimRows, {
    perBatch: CLAIMS_PER_BATCH,
    parallelism: CLAIM_PARALLELISM,
  });
  context.log(`  claims ${round(claims.ms, 0)} ms, ${claims.units} write units`);
  // Tracking links first, as the worker writes them, each under a new key of the same length.
  const trackingLinks = stored.trackingLinks.map((link) => ({
    ...link,
    pk: `TRACKING#${randomBytes(32).toString('hex')}`,
  }));
  const rows = await context.raw.putAll(
    [...trackingLinks, ...stored.rows.map(stored.moveTo(rawRouteId))],
    ROW_WRITE_PARALLELISM,
  );
  context.log(`  rows ${round(rows.ms, 0)} ms, ${rows.units} write units`);
  return {
    ms: check.ms + claims.ms + rows.ms,
    claims,
    rows,
    summary: {
      ms: round(check.ms + claims.ms + rows.ms),
      claim_check_read: {
        ms: round(check.ms),
        keys: claimRows.length,
        per_request: 100,
        parallelism: ROW_WRITE_PARALLELISM,
        note: 'BatchGetItem of every claim key, as POST checks them before accepting',
      },
      claims: {
        ...writeSummary(claims),
        per_batch: CLAIMS_PER_BATCH,
        parallelism: CLAIM_PARALLELISM,
      },
      rows: { ...writeSummary(rows), parallelism: ROW_WRITE_PARALLELISM },
      note:
        "the check's baseline: the POST's read of every claim key, then the writes the worker must make (claims, " +
        'then rows, one after the other, as the worker makes them: ms); the ratio is POST-to-SUCCEEDED over ' +
        "that. Leaves out the import's bookkeeping (PENDING record, S3 body, SQS message, the final transaction)",
    },
  };
}

/**
 * The same number of claims (other route ids of the same length) written the other ways: one conditional
 * PutItem each, and transactions of 100 conditional puts (the former design).
 */
export async function rawClaimAlternatives(context: Context, runId: string) {
  const condition = (txid: string) => ({
    condition: 'attribute_not_exists(pk) OR txid = :txid',
    values: { ':txid': txid },
  });
  let txid = newTxid();
  const singlePuts = await context.raw.conditionalPutAll(claimRowsOf(context, `bench-sgl-${runId}`, txid), {
    parallelism: SINGLE_PUT_PARALLELISM,
    ...condition(txid),
  });
  context.log(`  single puts ${round(singlePuts.ms, 0)} ms, ${singlePuts.units} write units`);
  txid = newTxid();
  const transactions = await context.raw.transactPutAll(claimRowsOf(context, `bench-trx-${runId}`, txid), {
    perTransaction: CLAIMS_PER_TRANSACTION,
    parallelism: TRANSACTION_PARALLELISM,
    ...condition(txid),
  });
  context.log(`  transactions ${round(transactions.ms, 0)} ms, ${transactions.units} write units`);
  return { singlePuts, transactions };
}

/** The worker's INSERT batches of claims against transactions of 100 and single conditional puts. */
export function compareClaimWrites(
  inserts: WriteStats,
  { singlePuts, transactions }: Awaited<ReturnType<typeof rawClaimAlternatives>>,
) {
  const perClaim = (stats: WriteStats) => round(stats.units / stats.items);
  return {
    inserts: {
      ...writeSummary(inserts),
      per_batch: CLAIMS_PER_BATCH,
      parallelism: CLAIM_PARALLELISM,
      units_per_claim: perClaim(inserts),
    },
    transactions: {
      ...writeSummary(transactions),
      per_transaction: CLAIMS_PER_TRANSACTION,
      parallelism: TRANSACTION_PARALLELISM,
      units_per_claim: perClaim(transactions),
    },
    single_puts: {
      ...writeSummary(singlePuts),
      parallelism: SINGLE_PUT_PARALLELISM,
      units_per_claim: perClaim(singlePuts),
    },
    ms_inserts_over_transactions: round(inserts.ms / transactions.ms),
    ms_single_puts_over_transactions: round(singlePuts.ms / transactions.ms),
    // Units per claim x USD per million units = USD per million claims.
    usd_saved_per_million_claims_over_transactions: round(
      (transactions.units / transactions.items - inserts.units / inserts.items) *
        WRITE_REQUEST_UNIT_USD_PER_MILLION,
    ),
    trade_off:
      'transactions: a conflicting id cancels its whole group of 100 with nothing written, at 2 units per ' +
      'claim; INSERTs and single puts: 1 unit per claim, but a conflict leaves the claims taken before it ' +
      "written, which the worker releases (as it always did on failure: releaseClaims reads the import's claims " +
      'and deletes its own), so only a conflicting import costs more: a read and a delete per claim taken. ' +
      'INSERTs take 25 claims a request, single puts one',
  };
}

/** Write units of one put of `row` on AWS's rules: one per started KB (DynamoDB's item size). */
export const unitsBySize = (row: Row) => Math.ceil(itemSize(row) / 1024);

/**
 * The import's write units per imported item: claims and rows as DynamoDB Local reported them for the same
 * writes, raw; bookkeeping from the stored items' sizes (transaction items count twice); the header also
 * writes each global secondary index it carries keys for (projection ALL: its size again, once).
 */
export function writeUnits(input: {
  items: number;
  claims: WriteStats;
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
    price: PRICE_NOTE,
    note:
      'rows: the ConsumedCapacity (TOTAL) DynamoDB Local returned for the raw BatchWriteItems of the same rows ' +
      '(rows_units_by_size_estimate cross-checks it from their sizes); claims: 1 per started KB of each claim ' +
      'item from its size, as AWS charges a PartiQL INSERT (DynamoDB Local reports no units for ' +
      'BatchExecuteStatement); ' +
      'bookkeeping: from the stored sizes (PENDING import record PutItem; the final transaction of header, ' +
      'import record update and ROUTE_CREATED event at 2 per KB; header GSI writes in the header entry)',
  };
}
