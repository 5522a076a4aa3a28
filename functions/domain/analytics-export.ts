import { once } from 'node:events';
import { listDcs } from '../data/accounts';
import { type AnalyticsType, analyticsOfDate, routesWithAnalytics } from '../data/analytics';
import { bucketKeys } from '../data/bucket-keys';
import { uploadStream } from '../data/bucket-uploads';
import {
  type DownloadFile,
  type DownloadRequest,
  downloadRequestKey,
  finishDownload,
  getDownload,
} from '../data/download-requests';
import { listRoutesOfDate } from '../data/routes';
import { countWorkerAttempt } from '../data/worker-attempts';
import type { ExportMessage } from '../models/channels';
import * as channels from '../models/channels';
import { countMetric, logger } from '../shared/observability';
import { ATTEMPT_ANALYSIS_COLUMNS, ROUTE_ANALYSIS_COLUMNS } from './analytics-columns';
import { analyticsCsv } from './analytics-csv';
import { datesBetween } from './analytics-requests';
import { computeRouteAnalytics } from './route-analytics';

const EXPORT_ATTEMPTS = channels.analytics.workerAttempts;

const COLUMNS: Record<AnalyticsType, readonly string[]> = {
  ROUTE_ANALYTICS: Object.keys(ROUTE_ANALYSIS_COLUMNS),
  ATTEMPT_ANALYTICS: Object.keys(ATTEMPT_ANALYSIS_COLUMNS),
};

/**
 * The ids of a DC-date's routes, less those being deleted (their analytics stay until the deletion worker
 * removes them, and must not be exported meanwhile). Finished ones without stored analytics (their
 * computation at finish failed) get them now.
 */
async function exportableRoutesOfDate(
  accountId: string,
  dcId: string,
  localDate: string,
): Promise<Set<string>> {
  const routes = (await listRoutesOfDate(accountId, dcId, localDate)).items.filter(
    (route) => !route.deleting,
  );
  const computed = await routesWithAnalytics(accountId, dcId, localDate);
  for (const route of routes.filter((candidate) => candidate.isFinalized && !computed.has(candidate.routeId)))
    await computeRouteAnalytics(route);
  return new Set(routes.map((route) => route.routeId));
}

/**
 * Writes one analytics type of a request as CSV files (RFC 4180, header = column ids), streaming rows
 * from the table into multipart uploads: a new file every `rowsPerFile` rows, a header-only file when
 * there are none. Memory holds two pages of rows (one being written, the next being read) and the
 * upload's parts in flight, whatever the size.
 */
async function exportType(
  request: DownloadRequest,
  type: AnalyticsType,
  rowsPerFile: number,
): Promise<DownloadFile[]> {
  const files: DownloadFile[] = [];
  let csv: ReturnType<typeof analyticsCsv> | undefined;
  let upload: Promise<void> | undefined;
  const startFile = () => {
    const key = bucketKeys.analyticsFile(
      request.accountId,
      request.txid,
      `${type.toLowerCase()}-${String(files.length + 1).padStart(3, '0')}.csv`,
    );
    csv = analyticsCsv(COLUMNS[type]);
    upload = uploadStream(key, csv, 'text/csv; charset=utf-8');
    // Awaited at the end of the file (or raced while writing); never left unhandled meanwhile.
    upload.catch(() => undefined);
    files.push({ analyticsType: type, key, rows: 0 });
  };
  const endFile = async () => {
    csv?.end();
    await upload;
  };

  startFile();
  for (const dcId of request.dcIds) {
    for (const date of datesBetween(request.fromDate, request.toDate)) {
      const routeIds = await exportableRoutesOfDate(request.accountId, dcId, date);
      for await (const rows of analyticsOfDate(request.accountId, dcId, date, type, routeIds)) {
        for (const row of rows) {
          const file = files.at(-1) as DownloadFile;
          if (file.rows === rowsPerFile) {
            await endFile();
            startFile();
          }
          (files.at(-1) as DownloadFile).rows++;
          if (!(csv as ReturnType<typeof analyticsCsv>).write(row)) {
            // A failed upload stops reading: without the race, waiting for 'drain' would never end.
            await Promise.race([once(csv as NodeJS.EventEmitter, 'drain'), upload]);
          }
        }
      }
    }
  }
  await endFile();
  return files;
}

/**
 * Runs one queued download request; a request that already ended is left alone (SQS may deliver twice).
 * Other errors are rethrown for SQS to retry, except on the worker's last attempt (counted on the request),
 * which marks it FAILED; a run after that (the last one timed out) ends it FAILED at once.
 */
export async function runExport(
  message: ExportMessage,
  options: { rowsPerFile: number },
): Promise<'SUCCEEDED' | 'FAILED' | 'ALREADY_FINISHED'> {
  const request = await getDownload(message.account_id, message.txid);
  if (!request) throw new Error(`download request ${message.txid} has no record`);
  if (request.status !== 'PENDING') return 'ALREADY_FINISHED';
  const attempt = await countWorkerAttempt(downloadRequestKey(request.accountId, request.txid));
  if (attempt === undefined) return 'ALREADY_FINISHED';
  const lastAttempt = attempt >= EXPORT_ATTEMPTS;
  if (attempt > EXPORT_ATTEMPTS) {
    logger.error('analytics export ran out of attempts', { txid: request.txid, attempt });
    await finishDownload(request.accountId, request.txid, { status: 'FAILED' });
    return 'FAILED';
  }
  try {
    // The account's DCs may have changed since the request: export only those still there.
    const dcs = new Set((await listDcs(request.accountId)).map((dc) => dc.dcId));
    const live = { ...request, dcIds: request.dcIds.filter((dcId) => dcs.has(dcId)) };
    const files: DownloadFile[] = [];
    for (const type of request.analyticsTypes)
      files.push(...(await exportType(live, type, options.rowsPerFile)));
    // Counted by the attempt that ended the request: a redelivered message may write the files twice.
    if (await finishDownload(request.accountId, request.txid, { status: 'SUCCEEDED', files }))
      countMetric(
        'AnalyticsRowsExported',
        files.reduce((sum, file) => sum + file.rows, 0),
      );
    return 'SUCCEEDED';
  } catch (error) {
    if (!lastAttempt) throw error;
    logger.error('analytics export failed on its last attempt', { error, txid: request.txid });
    await finishDownload(request.accountId, request.txid, { status: 'FAILED' });
    return 'FAILED';
  }
}
