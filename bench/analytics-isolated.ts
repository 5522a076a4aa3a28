import { pathToFileURL } from 'node:url';
import { getDownload, putPendingDownload } from '../functions/data/download-requests';
import type { ExportMessage } from '../functions/models/channels';
import { sqsRecord } from '../local/event-sources/sqs-records';
import { GC_SAMPLE_MS, type Memory, mb, peakByQuarter, runIsolatedWorker } from './analytics-process';
import { type AnalyticsBench, type DataSet, rowsOf, SETS } from './analytics-sets';
import { repoRoot } from './runtime';
import { round } from './stats';

/**
 * The analytics bench's isolated worker runs (bench/analytics.ts): the export worker's handler alone, in a
 * fresh node process per set, with a synthetic SQS record for a pending request; its own memory.
 */

/** Runs every set in a fresh process (then again with a forced GC); the JSON entries and the peaks per set. */
export async function isolatedWorkerRuns(bench: AnalyticsBench, handlerEnv: Record<string, string>) {
  const { accountId, runId, abort, log, fail } = bench;
  const dcId = bench.dc.dcId;
  const isolated: Record<string, unknown> = {};
  const isolatedPeaks: Record<string, number> = {};
  const isolatedLive: Record<string, number> = {};
  const runWorker = async (set: DataSet, forceGc: boolean) => {
    const txid = `dl_bench${runId}${set.key.replace('rows_', '')}${forceGc ? 'gc' : ''}`;
    await putPendingDownload({
      accountId,
      txid,
      dcIds: [dcId],
      fromDate: set.dates[0] as string,
      toDate: set.dates.at(-1) as string,
      analyticsTypes: ['ATTEMPT_ANALYTICS'],
      status: 'PENDING',
      files: [],
      createdAt: Date.now(),
    });
    const result = await runIsolatedWorker(
      {
        ...process.env,
        ...handlerEnv,
        BENCH_HANDLER_URL: pathToFileURL(`${repoRoot}functions/workers/export-analytics/handler.ts`).href,
        BENCH_EVENT: JSON.stringify({
          Records: [
            sqsRecord({
              messageId: 'bench-1',
              receiptHandle: 'bench',
              body: JSON.stringify({ account_id: accountId, txid } satisfies ExportMessage),
              queueArn: 'arn:aws:sqs:us-east-1:000000000000:bench',
            }),
          ],
        }),
      },
      forceGc,
      abort,
    );
    const request = await getDownload(accountId, txid);
    const exportedRows = (request?.files ?? []).reduce((total, file) => total + file.rows, 0);
    if (request?.status !== 'SUCCEEDED' || exportedRows !== rowsOf(set))
      fail(`${set.key} (isolated): request ${request?.status}, ${exportedRows} rows of ${rowsOf(set)}`);
    return { txid, result, status: request?.status, exportedRows };
  };
  const heapOf = (memory: Memory) => memory.heapUsed + memory.external;
  for (const set of SETS) {
    log(`${set.key}: the worker's handler alone in a fresh process`);
    const plain = await runWorker(set, false);
    const { result } = plain;
    isolatedPeaks[set.key] = mb(result.peak.rss);
    log(
      `  ${(result.ms / 1000).toFixed(2)} s; RSS ${mb(result.before.rss)} -> peak ${mb(result.peak.rss)} MB ` +
        `(heap used + external ${mb(heapOf(result.before))} -> peak ${mb(heapOf(result.peak))} MB)`,
    );
    log(`${set.key}: again with a forced GC every ${GC_SAMPLE_MS} ms (the live set)`);
    const collected = await runWorker(set, true);
    const live = collected.result;
    log(
      `  ${(live.ms / 1000).toFixed(2)} s; live heap used + external ${mb(heapOf(live.before))} -> peak ` +
        `${mb(heapOf(live.peak))} MB, RSS peak ${mb(live.peak.rss)} MB`,
    );
    isolatedLive[set.key] = mb(heapOf(live.peak));
    isolated[set.key] = {
      txid: plain.txid,
      status: plain.status,
      rows: plain.exportedRows,
      handler_ms: round(result.ms),
      rows_per_s: round(rowsOf(set) / (result.ms / 1000), 1),
      rss_before_export_mb: mb(result.before.rss),
      rss_peak_during_export_mb: mb(result.peak.rss),
      rss_increase_mb: mb(result.peak.rss - result.before.rss),
      peak_mb: {
        heap_total: mb(result.peak.heapTotal),
        heap_used: mb(result.peak.heapUsed),
        external: mb(result.peak.external),
        array_buffers: mb(result.peak.arrayBuffers),
      },
      rss_peak_by_quarter_of_the_run_mb: peakByQuarter(result, 1),
      process_max_rss_mb: mb(result.maxRss),
      samples: result.samples,
      forced_gc_run: {
        txid: collected.txid,
        status: collected.status,
        handler_ms: round(live.ms),
        live_heap_used_plus_external_before_mb: mb(heapOf(live.before)),
        live_heap_used_plus_external_peak_mb: mb(heapOf(live.peak)),
        live_peak_mb: {
          heap_used: mb(live.peak.heapUsed),
          external: mb(live.peak.external),
          array_buffers: mb(live.peak.arrayBuffers),
        },
        live_heap_used_plus_external_peak_by_quarter_of_the_run_mb: peakByQuarter(live, 2),
        rss_before_export_mb: mb(live.before.rss),
        rss_peak_during_export_mb: mb(live.peak.rss),
        samples: live.samples,
      },
    };
  }
  return { isolated, isolatedPeaks, isolatedLive };
}
