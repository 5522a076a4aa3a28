import { randomBytes } from 'node:crypto';
import { listDcs } from '../functions/data/accounts';
import { configure } from '../functions/shared/config';
import { type BenchDc, WAYPOINTS_PER_ROUTE } from './analytics-data';
import { isolatedWorkerRuns } from './analytics-isolated';
import { GC_SAMPLE_MS, mb, RSS_SAMPLE_MS, runtimePid } from './analytics-process';
import { exportThroughApi, PAGE_SIZE, POLL_MS, rawQuery, verifyFiles } from './analytics-reads';
import {
  type AnalyticsBench,
  ATTEMPTS_PER_ROUTE,
  rowsOf,
  SETS,
  seedSets,
  WARMUP_SET,
} from './analytics-sets';
import { RawTable } from './dynamo';
import { ApiClient } from './http';
import type { StackInfo } from './runtime';
import type { Scenario } from './scenario';
import { check, median, round } from './stats';

/**
 * The issue: export 20,000 and 200,000 attempt rows of finished routes, rows/s >= 0.5 x a raw paginated
 * Query of the same items, and the worker's peak RSS for the 200,000 rows at most 32 MB above the 20,000.
 */
const THROUGHPUT_RATIO_TARGET = 0.5;
const RSS_GROWTH_TARGET_MB = 32;
const RAW_RUNS = 3;

/**
 * Attempt analytics of finished routes, seeded through the data layer (putAll, analyticsItem and
 * analyticsKeys of functions/data/analytics.ts, rows from attemptAnalytics/routeAnalytics), exported
 * through the API for two date windows of the demo DC (20,000 and 200,000 rows), against a raw
 * paginated Query of the same items; the peak RSS of the worker's process while exporting.
 */
export const analyticsExportScenario: Scenario = {
  name: 'analytics_export',
  async run({ runtime, demo: { stack, apiKey, accountId, dcId }, abort, log }) {
    // The data layer seeds and reads the runtime's table: its client is given the local endpoint.
    configure({
      TABLE_NAME: stack.table_name,
      AWS_ENDPOINT_URL_DYNAMODB: stack.dynamodb_endpoint,
      AWS_REGION: stack.region,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });

    const api = new ApiClient(stack.api_url, apiKey, 2);
    const raw = new RawTable(stack, abort);
    const runId = randomBytes(4).toString('hex');
    const errors: string[] = [];
    const fail = (message: string) => {
      errors.push(message);
      log(`  ERROR ${message}`);
    };

    try {
      const dc = (await listDcs(accountId)).find((candidate) => candidate.dcId === dcId);
      if (!dc) throw new Error(`the demo account has no DC ${dcId}`);
      const benchDc: BenchDc = {
        dcId: dc.dcId,
        name: dc.name,
        timeZone: dc.timeZone,
        ...(dc.etaSpeedKmh === undefined ? {} : { etaSpeedKmh: dc.etaSpeedKmh }),
      };
      const bench: AnalyticsBench = {
        accountId,
        dc: benchDc,
        api,
        raw,
        logFile: runtime.logFile,
        runId,
        abort,
        log,
        fail,
      };
      const seed = await seedSets(bench);

      const pid = runtimePid();

      // ---- Warm-up: the worker's handler is loaded (the local "cold start"), DynamoDB Local's query path warmed.
      log(
        `warm-up: an export of ${WARMUP_SET.dates[0]} (${rowsOf(WARMUP_SET)} rows) and a raw Query of rows_20k`,
      );
      const warm = await exportThroughApi(
        bench,
        pid,
        'warm-up',
        WARMUP_SET.dates[0] as string,
        WARMUP_SET.dates[0] as string,
      );
      const warmFiles = await verifyFiles(
        bench,
        'warm-up',
        warm.files.map((file) => file.download_link),
        WARMUP_SET,
      );
      await rawQuery(bench, SETS[0]);

      // ---- Measured: each set through the API (RSS of the runtime process sampled), then the raw Query.
      const measured: Record<string, unknown> = {};
      const ratios: Record<string, number> = {};
      const runtimePeaks: Record<string, number> = {};
      const runtimeIncreases: Record<string, number> = {};
      const fileBytes: Record<string, number> = {};
      for (const set of SETS) {
        const rows = rowsOf(set);
        const from = set.dates[0] as string;
        const to = set.dates.at(-1) as string;
        const exportRuns = [];
        const rawRuns = [];
        const eventualRuns = [];
        let downloaded = { rows: 0, bytes: 0, mismatched: 0 };
        // Export, raw Queries, export, raw Queries ...: each export's Queries are run beside it.
        for (let exportRun = 0; exportRun < (set.exportRuns ?? 1); exportRun++) {
          log(`${set.key}: export of ${from} .. ${to} (${rows} rows) through the API`);
          const run = await exportThroughApi(bench, pid, set.key, from, to);
          exportRuns.push(run);
          log(
            `  files ready after ${(run.ms / 1000).toFixed(2)} s (${run.polls} polls); runtime RSS ` +
              `${run.memory.before_mb} -> peak ${run.memory.peak_mb} MB; downloading and checking every row`,
          );
          downloaded = await verifyFiles(
            bench,
            set.key,
            run.files.map((file) => file.download_link),
            set,
          );
          if (run.files.some((file) => file.download_type !== 'ATTEMPT_ANALYTICS'))
            fail(`${set.key}: files of type ${run.files.map((file) => file.download_type).join(', ')}`);
          if (run.workerOutcome !== undefined && run.workerOutcome !== 'SUCCEEDED')
            fail(`${set.key}: the worker logged outcome ${run.workerOutcome}`);
          log(`  ${downloaded.rows} rows, ${mb(downloaded.bytes)} MB of CSV; raw Query x ${RAW_RUNS}`);
          for (let i = 0; i < RAW_RUNS; i++) {
            rawRuns.push(await rawQuery(bench, set));
            eventualRuns.push(await rawQuery(bench, set, false));
          }
        }
        // The first export's process memory, as with one export a window: the RSS check compares windows.
        const run = exportRuns[0] as (typeof exportRuns)[number];
        const exportMs = median(exportRuns.map((r) => r.ms));
        for (const rawRun of [...rawRuns, ...eventualRuns])
          if (rawRun.rows !== rows)
            fail(`${set.key}: the raw Query read ${rawRun.rows} rows, ${rows} seeded`);
        const rawMs = median(rawRuns.map((r) => r.ms));
        const exportPerS = rows / (exportMs / 1000);
        const rawPerS = rows / (rawMs / 1000);
        ratios[set.key] = exportPerS / rawPerS;
        runtimePeaks[set.key] = run.memory.peak_mb;
        runtimeIncreases[set.key] = run.memory.increase_mb;
        fileBytes[set.key] = downloaded.bytes;
        log(
          `  export ${Math.round(exportPerS)} rows/s, raw ${Math.round(rawPerS)} rows/s: ratio ${round(ratios[set.key] as number)}`,
        );
        measured[set.key] = {
          dates: set.dates,
          routes: set.dates.length * set.routesPerDate,
          rows,
          txid: run.txid,
          post_to_files_ms: round(exportMs),
          ...(exportRuns.length > 1 ? { post_to_files_runs_ms: exportRuns.map((r) => round(r.ms)) } : {}),
          status_polls: run.polls,
          post_to_worker_log_line_ms: round(run.workerLoggedMs),
          export_rows_per_s: round(exportPerS, 1),
          raw_query: {
            runs_ms: rawRuns.map((r) => round(r.ms)),
            median_ms: round(rawMs),
            pages_per_run: rawRuns[0]?.pages,
            rows_per_s: round(rawPerS, 1),
          },
          raw_query_eventually_consistent: {
            runs_ms: eventualRuns.map((r) => round(r.ms)),
            median_ms: round(median(eventualRuns.map((r) => r.ms))),
            rows_per_s: round(rows / (median(eventualRuns.map((r) => r.ms)) / 1000), 1),
          },
          export_over_raw_ratio: round(exportPerS / rawPerS),
          files: run.files.length,
          downloaded_rows: downloaded.rows,
          csv_mb: mb(downloaded.bytes),
          rows_differing_from_seed: downloaded.mismatched,
          runtime_process_rss: run.memory,
        };
      }

      // ---- The same exports by the worker's handler alone, in a fresh process per size.
      const extra = stack as StackInfo & {
        bucket_name?: string;
        operator_environment?: Record<string, string>;
      };
      let isolated: Record<string, unknown> = {};
      let isolatedPeaks: Record<string, number> = {};
      let isolatedLive: Record<string, number> = {};
      if (extra.operator_environment)
        ({ isolated, isolatedPeaks, isolatedLive } = await isolatedWorkerRuns(
          bench,
          extra.operator_environment,
        ));
      else fail('stack.json lacks bucket_name, s3_endpoint or the queues: no isolated worker run');

      const runtimeGrowth = (runtimePeaks.rows_200k ?? NaN) - (runtimePeaks.rows_20k ?? NaN);
      const isolatedGrowth = (isolatedPeaks.rows_200k ?? NaN) - (isolatedPeaks.rows_20k ?? NaN);
      return {
        description:
          `Attempt analytics of finished routes of the demo DC ${dcId} seeded through the data layer (putAll of ` +
          'analyticsItem/analyticsKeys of functions/data/analytics.ts, rows from attemptAnalytics and ' +
          `routeAnalytics of generated routes: ${WAYPOINTS_PER_ROUTE} Chicago stops, ${ATTEMPTS_PER_ROUTE} ` +
          'attempts, one ROUTE record each; no route headers, so the export finds nothing to complete) in two ' +
          `date windows: ${SETS.map((s) => `${s.key} = ${s.dates.length} dates x ${s.routesPerDate} routes (${s.dates[0]} .. ${s.dates.at(-1)})`).join(', ')}. ` +
          'Each window is exported through the API (POST /analytics/download-requests for ATTEMPT_ANALYTICS, ' +
          `GET .../files every ${POLL_MS} ms until 200; time = POST sent -> 200), after a warm-up export of ` +
          `${rowsOf(WARMUP_SET)} rows of another date that loads the worker and runs its row path (a window of ` +
          'exportRuns: that many exports, each followed by its raw Queries, the ratio over the medians); the files ' +
          'are downloaded with their presigned links and every record is compared with the seeded rows (errors ' +
          'otherwise). Raw: a paginated Query (Limit ' +
          `${PAGE_SIZE}, begins_with ATTEMPT#, ConsistentRead, as analyticsOfDate reads) of the same partitions ` +
          `from the bench process, median of ${RAW_RUNS} (raw_query_eventually_consistent: the same without ` +
          `ConsistentRead, interleaved, informative). Memory: VmRSS of the local runtime's node process ` +
          `sampled every ${RSS_SAMPLE_MS} ms from the POST to the 200 (runtime_process_rss, informative). That ` +
          'process is shared: the worker runs there next to the API, the other pollers and the S3 emulator ' +
          '(fauxqs), which keeps every uploaded object in its memory (at completion the multipart parts and ' +
          'their concatenation at once), so its RSS grows with the size of the CSV whatever the worker does. ' +
          'isolated_worker (checked) runs the same handler (functions/workers/export-analytics/handler.ts) with ' +
          'a synthetic SQS record for a pending request (put with putPendingDownload) in a fresh node process ' +
          'per size (tsx loader, the local handler environment, the same DynamoDB Local and S3 emulator), ' +
          `process.memoryUsage() sampled every ${RSS_SAMPLE_MS} ms in-process: the worker's own memory; its ` +
          `forced_gc_run does it again with a GC before every sample (every ${GC_SAMPLE_MS} ms), so its heap ` +
          'figures are the live set rather than garbage not yet collected.',
        run_id: runId,
        errors: errors.length,
        ...(errors.length ? { error_samples: errors.slice(0, 10) } : {}),
        seed,
        warmup_export: {
          post_to_files_ms: round(warm.ms),
          downloaded_rows: warmFiles.rows,
          runtime_process_rss: warm.memory,
        },
        ...measured,
        export_over_raw_ratio: {
          rows_20k: round(ratios.rows_20k ?? NaN),
          rows_200k: round(ratios.rows_200k ?? NaN),
        },
        /** Informative: the process also holds the S3 emulator and its objects (see the description). */
        runtime_process_peak_rss_mb: {
          rows_20k: runtimePeaks.rows_20k ?? null,
          rows_200k: runtimePeaks.rows_200k ?? null,
          difference: round(runtimeGrowth, 1),
          increase_over_baseline: {
            rows_20k: runtimeIncreases.rows_20k ?? null,
            rows_200k: runtimeIncreases.rows_200k ?? null,
          },
          csv_mb_held_by_s3_emulator: {
            rows_20k: mb(fileBytes.rows_20k ?? NaN),
            rows_200k: mb(fileBytes.rows_200k ?? NaN),
          },
        },
        isolated_worker: {
          ...isolated,
          peak_rss_difference_mb: round(isolatedGrowth, 1),
          live_heap_peak_difference_mb: round(
            (isolatedLive.rows_200k ?? Number.NaN) - (isolatedLive.rows_20k ?? Number.NaN),
            1,
          ),
        },
        checks: {
          export_over_raw_ratio_20k: check(
            ratios.rows_20k ?? NaN,
            '>=',
            THROUGHPUT_RATIO_TARGET,
            `rows_20k: export rows/s (POST -> files 200, median of ${SETS[0].exportRuns ?? 1}) / raw paginated Query rows/s`,
          ),
          export_over_raw_ratio_200k: check(
            ratios.rows_200k ?? NaN,
            '>=',
            THROUGHPUT_RATIO_TARGET,
            'rows_200k: export rows/s (POST -> files 200) / raw paginated Query rows/s',
          ),
          worker_peak_rss_difference_mb: check(
            isolatedGrowth,
            '<=',
            RSS_GROWTH_TARGET_MB,
            'isolated worker process: peak RSS during the 200,000-row export - during the 20,000-row one',
          ),
        },
      };
    } finally {
      api.close();
      raw.destroy();
    }
  },
};
