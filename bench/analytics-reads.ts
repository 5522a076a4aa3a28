import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ATTEMPT_ANALYSIS_COLUMNS } from '../functions/domain/analytics-columns';
import { csvRecords, exportLogLine, sampleRss } from './analytics-process';
import { type AnalyticsBench, type DataSet, partitionOf, rowsOf, rowsOfRoute } from './analytics-sets';

/**
 * The ways the analytics bench reads a set (bench/analytics.ts): a raw paginated Query, an export through the
 * API, and the download and check of the exported files.
 */

/** analyticsOfDate (functions/data/analytics.ts) reads pages of 1000 items; so does the raw baseline. */
export const PAGE_SIZE = 1000;
export const POLL_MS = 100;
const EXPORT_TIMEOUT_MS = 10 * 60_000;

/** A paginated Query of the set's attempt rows; consistent: as analyticsOfDate reads (ConsistentRead since 7a3b5ab); false: informative. */
export async function rawQuery(bench: AnalyticsBench, set: DataSet, consistent = true) {
  const { raw } = bench;
  const started = performance.now();
  let rows = 0;
  let pages = 0;
  for (const date of set.dates) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await raw.db.send(
        new QueryCommand({
          TableName: raw.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': partitionOf(bench, date), ':prefix': 'ATTEMPT#' },
          ExclusiveStartKey: startKey,
          Limit: PAGE_SIZE,
          ConsistentRead: consistent,
        }),
      );
      pages++;
      rows += page.Items?.length ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
  return { ms: performance.now() - started, rows, pages };
}

/** An export of `fromDate` .. `toDate` through the API, POST to files ready, the runtime process's RSS sampled. */
export async function exportThroughApi(
  bench: AnalyticsBench,
  pid: number,
  label: string,
  fromDate: string,
  toDate: string,
) {
  const { api, abort } = bench;
  const dcId = bench.dc.dcId;
  const logOffset = readFileSync(bench.logFile, 'utf8').length;
  const rss = sampleRss(pid);
  const postedAt = Date.now();
  const started = performance.now();
  const { status, body } = await api.post(
    '/analytics/download-requests',
    JSON.stringify({
      dc_ids: [dcId],
      from_date: fromDate,
      to_date: toDate,
      analytics_types: ['ATTEMPT_ANALYTICS'],
    }),
  );
  const txid = (body as { data?: { download_request_txid?: unknown } } | undefined)?.data
    ?.download_request_txid;
  if (status !== 200 || typeof txid !== 'string') {
    rss.stop();
    throw new Error(`${label}: POST download-requests answered ${status} ${JSON.stringify(body)}`);
  }
  let polls = 0;
  let files: { download_link: string; download_type: string }[] | undefined;
  while (!files) {
    abort.throwIfAborted();
    if (performance.now() - started > EXPORT_TIMEOUT_MS) {
      rss.stop();
      throw new Error(`${label}: export ${txid} not done within ${EXPORT_TIMEOUT_MS / 1000} s`);
    }
    await sleep(POLL_MS);
    polls++;
    const answer = await api.get(`/analytics/download-requests/${encodeURIComponent(txid)}/files`);
    if (answer.status === 200)
      files = (answer.body as { data: { download_request_files: typeof files } }).data.download_request_files;
    else if (answer.status !== 202) {
      rss.stop();
      throw new Error(
        `${label}: GET files of ${txid} answered ${answer.status} ${JSON.stringify(answer.body)}`,
      );
    }
  }
  const ms = performance.now() - started;
  const memory = rss.stop();
  await sleep(200); // the worker logs its line right after finishing the request
  const logged = exportLogLine(bench.logFile, logOffset, txid);
  return {
    txid,
    ms,
    polls,
    files: files as { download_link: string; download_type: string }[],
    memory,
    workerLoggedMs: logged ? logged.at - postedAt : Number.NaN,
    workerOutcome: logged?.outcome,
  };
}

/** Downloads the files and compares every record with the seeded rows, in the export's order. */
export async function verifyFiles(
  bench: AnalyticsBench,
  label: string,
  links: readonly string[],
  set: DataSet | undefined,
) {
  const { fail } = bench;
  const columns = Object.keys(ATTEMPT_ANALYSIS_COLUMNS);
  const counter = { bytes: 0 };
  function* expected(): Generator<string[]> {
    if (!set) return;
    for (const date of set.dates)
      for (let index = 0; index < set.routesPerDate; index++)
        for (const row of rowsOfRoute(bench, date, index).attempts)
          yield columns.map((column) => {
            const value = row[column];
            return value === null || value === undefined ? '' : String(value);
          });
  }
  const want = expected();
  let rows = 0;
  let mismatched = 0;
  let extra = 0;
  for (const link of links) {
    let header = true;
    for await (const record of csvRecords(link, counter)) {
      if (header) {
        header = false;
        if (record.join(',') !== columns.join(','))
          fail(`${label}: header ${record.join(',').slice(0, 200)} is not the column ids`);
        continue;
      }
      rows++;
      const next = want.next();
      if (next.done) extra++;
      else if (record.length !== next.value.length || record.some((v, i) => v !== next.value[i])) {
        if (mismatched++ < 3)
          fail(`${label}: row ${rows} is ${JSON.stringify(record)}, seeded ${JSON.stringify(next.value)}`);
      }
    }
    if (header) fail(`${label}: a file without even a header`);
  }
  let missing = 0;
  while (!want.next().done) missing++;
  const expectedRows = set ? rowsOf(set) : 0;
  if (rows !== expectedRows) fail(`${label}: ${rows} data rows downloaded, ${expectedRows} seeded`);
  if (mismatched > 3) fail(`${label}: ${mismatched - 3} more rows differ from the seeded ones`);
  if (extra || missing) fail(`${label}: ${extra} rows more and ${missing} fewer than seeded`);
  return { rows, bytes: counter.bytes, mismatched, extra, missing };
}
