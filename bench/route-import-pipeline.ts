import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { CLAIM_PARALLELISM, CLAIMS_PER_BATCH, claimKey } from '../functions/data/claims';
import { interleavedByPartition } from '../functions/data/route-shards';
import { importedRouteRows } from '../functions/domain/route-import';
import { chunks } from '../functions/shared/parallel';
import { type Key, keyString, type RawTable } from './dynamo';
import type { ApiClient } from './http';
import { type BenchRoute, claimsOf, type RouteShape } from './route-body';
import { round } from './stats';

/** The route_import bench's import through the API (bench/route-import.ts): POST, status polling, progress. */

/** The route the issue asks for: 500 waypoints x 5 invoices x 10 items = 25,000 items. */
export const SHAPE: RouteShape = { waypoints: 500, invoicesPerWaypoint: 5, itemsPerInvoice: 10 };
/** A tenth of it, imported first: loads the worker and warms every DynamoDB Local code path it uses. */
export const WARMUP_SHAPE: RouteShape = { waypoints: 50, invoicesPerWaypoint: 5, itemsPerInvoice: 10 };
/** The worker's own settings: putAll (functions/data/client.ts) and takeClaims (functions/data/claims.ts). */
export const ROW_WRITE_PARALLELISM = 8;
export { CLAIM_PARALLELISM, CLAIMS_PER_BATCH };
/**
 * How often the import's status (and its progress probe) is read. Every poll is a GET through the local
 * runtime and a BatchGetItem on the DynamoDB Local the import writes to, on the same two cores: at 50 ms the
 * polls of one 25,000-item import (over a thousand) made it 10-30 % slower than imports polled every 500 ms
 * without the probe, which took what the raw work takes (115-135 s vs 101-108 s vs 98-100 s, one run). At
 * 500 ms a SUCCEEDED is seen up to half a second late, under 1 % of an import.
 */
export const POLL_MS = 500;
/** The 50,000-item route (bench/route-import-full.ts) takes a few minutes on a busy machine. */
const IMPORT_TIMEOUT_MS = 900_000;

export type RouteKeys = typeof import('../functions/data/routes')['routeKeys'];

export interface Context {
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
  /** The route's own claim: the worker's first claim batch written. */
  first_claim_seen_ms: number | null;
  /** The first claim of each of the last CLAIM_PARALLELISM batches: the claims are (about) done. */
  last_claims_seen_ms: number | null;
  /** The first row (WP#00000): the claims are all taken, the rows started. */
  first_row_seen_ms: number | null;
  /** The first row of each of the last ROW_WRITE_PARALLELISM batches: the rows are (about) written. */
  last_rows_seen_ms: number | null;
}

export interface ImportRun {
  txid: string;
  body_bytes: number;
  post_ms: number;
  post_to_succeeded_ms: number;
  accepted_to_succeeded_ms: number;
  status_polls: number;
  progress?: Progress;
}

export function summary(run: ImportRun) {
  return {
    txid: run.txid,
    body_bytes: run.body_bytes,
    post_ms: round(run.post_ms),
    post_to_succeeded_ms: round(run.post_to_succeeded_ms),
    accepted_to_succeeded_ms: round(run.accepted_to_succeeded_ms),
    status_polls: run.status_polls,
  };
}

/**
 * Where the import spent its time, from the progress seen in the table (each bound is late by up to one
 * poll interval plus one probe).
 */
export function phases(run: ImportRun) {
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

/**
 * Imports the route through the API and polls its status until SUCCEEDED: POSTed, or (`upload`, for a body
 * over the POST's 5 MB) PUT to an upload link, post_ms then timing the link's request and the PUT.
 */
export async function importRoute(
  context: Context,
  route: BenchRoute,
  options: { probe?: boolean; upload?: boolean } = {},
): Promise<ImportRun> {
  const { api, dcId } = context;
  const body = Buffer.from(JSON.stringify({ route }), 'utf8');
  const probe = options.probe ? progressProbe(context, route) : undefined;

  const t0 = performance.now();
  const accepted = await api.post(
    `/dcs/${encodeURIComponent(dcId)}/invoiced-routes${options.upload ? '/uploads' : ''}`,
    options.upload ? '{}' : body,
  );
  const data = (accepted.body as { data?: { txid?: unknown; upload_url?: unknown } } | undefined)?.data;
  const txid = data?.txid;
  if (accepted.status !== 202 || typeof txid !== 'string')
    throw new Error(`POST answered ${accepted.status}: ${JSON.stringify(accepted.body).slice(0, 300)}`);
  if (options.upload) {
    const put = await fetch(String(data?.upload_url), { method: 'PUT', body });
    if (put.status !== 200) throw new Error(`the upload PUT answered ${put.status}: ${await put.text()}`);
  }
  const postMs = performance.now() - t0;

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
function progressProbe(context: Context, route: BenchRoute) {
  const { accountId, raw } = context;
  const claimKeys = claimsOf(route).map((claim) => claimKey(accountId, claim));
  // In the order the worker writes them (its tracking links before: the batches are off by those).
  const rowKeys: Key[] = interleavedByPartition(importedRouteRows(accountId, route).rows).map((row) => ({
    pk: row.pk,
    sk: row.sk,
  }));
  const heads = (keys: Key[], size: number, last: number) =>
    chunks(keys, size)
      .slice(-last)
      .map((chunk) => chunk[0] as Key);
  const markers: Record<keyof Progress, Key[]> = {
    first_claim_seen_ms: claimKeys.slice(0, 1),
    last_claims_seen_ms: heads(claimKeys, CLAIMS_PER_BATCH, CLAIM_PARALLELISM),
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
