import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { listDcs } from '../functions/data/accounts';
import { analyticsItem, analyticsKeys } from '../functions/data/analytics';
import { putAll } from '../functions/data/client';
import { getDownload, putPendingDownload } from '../functions/data/download-requests';
import { headerItem } from '../functions/data/routes';
import * as analytics from '../functions/domain/analytics';
import { configure } from '../functions/shared/config';
import { sqsRecord } from '../test/support/sqs-records';
import { type BenchDc, routeFacts, WAYPOINTS_PER_ROUTE } from './analytics-data';
import {
  csvRecords,
  exportLogLine,
  GC_SAMPLE_MS,
  type Memory,
  mb,
  peakByQuarter,
  RSS_SAMPLE_MS,
  runIsolatedWorker,
  runtimePid,
  sampleRss,
} from './analytics-process';
import { itemSize, RawTable, type Row } from './dynamo';
import { ApiClient } from './http';
import { repoRoot, type StackInfo } from './runtime';
import type { Scenario, ScenarioContext, ScenarioResult } from './scenario';
import { check, median, round } from './stats';

/**
 * The issue: export 20,000 and 200,000 attempt rows of finished routes, rows/s >= 0.5 x a raw paginated
 * Query of the same items, and the worker's peak RSS for the 200,000 rows at most 32 MB above the 20,000.
 */
const ATTEMPTS_PER_ROUTE = 100;
const THROUGHPUT_RATIO_TARGET = 0.5;
const RSS_GROWTH_TARGET_MB = 32;
/** analyticsOfDate (functions/data/analytics.ts) reads pages of 1000 items; so does the raw baseline. */
const PAGE_SIZE = 1000;
const SEED_PARALLELISM = 16;
const POLL_MS = 100;
const EXPORT_TIMEOUT_MS = 10 * 60_000;
const RAW_RUNS = 3;

interface DataSet {
  key: 'warmup' | 'rows_20k' | 'rows_200k';
  /** Consecutive DC-local dates: one export request covers them all. */
  dates: string[];
  routesPerDate: number;
}

/** Two date windows of the demo DC (it has one DC), far from today and from each other. */
const SETS: readonly DataSet[] = [
  { key: 'rows_20k', dates: consecutiveDates('2024-03-04', 4), routesPerDate: 50 },
  { key: 'rows_200k', dates: consecutiveDates('2024-04-01', 10), routesPerDate: 200 },
];
/**
 * Exported first, not measured: loads the worker's handler in the runtime and runs its row path (CSV,
 * multipart upload) before the measured exports, as a warm Lambda would have.
 */
const WARMUP_SET: DataSet = { key: 'warmup', dates: consecutiveDates('2024-02-05', 1), routesPerDate: 20 };

const rowsOf = (set: DataSet) => set.dates.length * set.routesPerDate * ATTEMPTS_PER_ROUTE;

function consecutiveDates(first: string, count: number): string[] {
  const day = Date.parse(`${first}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(day + i * 86_400_000).toISOString().slice(0, 10));
}

/**
 * Attempt analytics of finished routes, seeded through the data layer (putAll, analyticsItem and
 * analyticsKeys of functions/data/analytics.ts, rows from attemptAnalytics/routeAnalytics), exported
 * through the API for two date windows of the demo DC (20,000 and 200,000 rows), against a raw
 * paginated Query of the same items; the peak RSS of the worker's process while exporting.
 */
export const analyticsExportScenario: Scenario = {
  name: 'analytics_export',
  async run({ runtime, abort, log }: ScenarioContext): Promise<ScenarioResult> {
    const { stack, apiKey } = runtime;
    const { account_id: accountId, dc_id: dcId } = stack.demo;
    // The data layer seeds and reads the runtime's table: its client is given the local endpoint.
    configure({
      TABLE_NAME: stack.table_name,
      AWS_ENDPOINT_URL_DYNAMODB: stack.dynamodb_endpoint,
      AWS_REGION: stack.region,
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    const columns = Object.keys(analytics.ATTEMPT_ANALYSIS_COLUMNS);

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
      const place = (date: string, routeId: string) => ({ accountId, dcId, localDate: date, routeId });
      const partitionOf = (date: string) => analyticsKeys.route(place(date, '')).pk;
      const rowsOfRoute = (date: string, index: number) => {
        const { routeId, facts } = routeFacts(analytics, benchDc, accountId, date, index);
        return { routeId, facts, attempts: analytics.attemptAnalytics(facts) };
      };

      // ---- Seed through the data layer: attempts first, the route record last (as the service writes).
      let seededItems = 0;
      let itemBytes = 0;
      const seedStarted = performance.now();
      for (const set of [WARMUP_SET, ...SETS]) {
        log(
          `seeding ${set.key}: ${set.dates.length} dates (${set.dates[0]} .. ${set.dates.at(-1)}) x ` +
            `${set.routesPerDate} routes x ${ATTEMPTS_PER_ROUTE} attempts, putAll at ${SEED_PARALLELISM}`,
        );
        for (const date of set.dates) {
          abort.throwIfAborted();
          const attemptItems: Row[] = [];
          const routeItems: Row[] = [];
          // An export reads the routes of each date (it leaves out routes being deleted): their headers too.
          const headerItems: Row[] = [];
          for (let index = 0; index < set.routesPerDate; index++) {
            const { routeId, facts, attempts } = rowsOfRoute(date, index);
            if (attempts.length !== ATTEMPTS_PER_ROUTE || attempts[0]?.planned_route_start_date !== date)
              throw new Error(`generated route ${routeId}: ${attempts.length} attempts on ${date}?`);
            for (const [sequence, row] of attempts.entries())
              attemptItems.push(
                analyticsItem(
                  analyticsKeys.attempt(place(date, routeId), sequence),
                  'ATTEMPT_ANALYTICS',
                  routeId,
                  row,
                ),
              );
            routeItems.push(
              analyticsItem(
                analyticsKeys.route(place(date, routeId)),
                'ROUTE_ANALYTICS',
                routeId,
                analytics.routeAnalytics(facts),
              ),
            );
            headerItems.push(headerItem(facts.route));
          }
          for (const item of attemptItems) itemBytes += itemSize(item);
          await putAll(attemptItems, SEED_PARALLELISM);
          await putAll(routeItems, SEED_PARALLELISM);
          await putAll(headerItems, SEED_PARALLELISM);
          seededItems += attemptItems.length + routeItems.length + headerItems.length;
        }
      }
      const seedMs = performance.now() - seedStarted;
      const attemptRows = [WARMUP_SET, ...SETS].reduce((total, set) => total + rowsOf(set), 0);
      log(`  seeded ${seededItems} items in ${(seedMs / 1000).toFixed(1)} s`);

      // ---- The three ways of reading a set.
      /** consistent: as analyticsOfDate reads (ConsistentRead since 7a3b5ab); false: informative. */
      const rawQuery = async (set: DataSet, consistent = true) => {
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
                ExpressionAttributeValues: { ':pk': partitionOf(date), ':prefix': 'ATTEMPT#' },
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
      };

      const pid = runtimePid();
      const exportThroughApi = async (label: string, fromDate: string, toDate: string) => {
        const logOffset = readFileSync(runtime.logFile, 'utf8').length;
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
            files = (answer.body as { data: { download_request_files: typeof files } }).data
              .download_request_files;
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
        const logged = exportLogLine(runtime.logFile, logOffset, txid);
        return {
          txid,
          ms,
          polls,
          files: files as { download_link: string; download_type: string }[],
          memory,
          workerLoggedMs: logged ? logged.at - postedAt : Number.NaN,
          workerOutcome: logged?.outcome,
        };
      };

      /** Downloads the files and compares every record with the seeded rows, in the export's order. */
      const verifyFiles = async (label: string, links: readonly string[], set: DataSet | undefined) => {
        const counter = { bytes: 0 };
        function* expected(): Generator<string[]> {
          if (!set) return;
          for (const date of set.dates)
            for (let index = 0; index < set.routesPerDate; index++)
              for (const row of rowsOfRoute(date, index).attempts)
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
                fail(
                  `${label}: row ${rows} is ${JSON.stringify(record)}, seeded ${JSON.stringify(next.value)}`,
                );
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
      };

      // ---- Warm-up: the worker's handler is loaded (the local "cold start"), DynamoDB Local's query path warmed.
      log(
        `warm-up: an export of ${WARMUP_SET.dates[0]} (${rowsOf(WARMUP_SET)} rows) and a raw Query of rows_20k`,
      );
      const warm = await exportThroughApi(
        'warm-up',
        WARMUP_SET.dates[0] as string,
        WARMUP_SET.dates[0] as string,
      );
      const warmFiles = await verifyFiles(
        'warm-up',
        warm.files.map((file) => file.download_link),
        WARMUP_SET,
      );
      await rawQuery(SETS[0] as DataSet);

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
        log(`${set.key}: export of ${from} .. ${to} (${rows} rows) through the API`);
        const run = await exportThroughApi(set.key, from, to);
        log(
          `  files ready after ${(run.ms / 1000).toFixed(2)} s (${run.polls} polls); runtime RSS ` +
            `${run.memory.before_mb} -> peak ${run.memory.peak_mb} MB; downloading and checking every row`,
        );
        const downloaded = await verifyFiles(
          set.key,
          run.files.map((file) => file.download_link),
          set,
        );
        if (run.files.some((file) => file.download_type !== 'ATTEMPT_ANALYTICS'))
          fail(`${set.key}: files of type ${run.files.map((file) => file.download_type).join(', ')}`);
        if (run.workerOutcome !== undefined && run.workerOutcome !== 'SUCCEEDED')
          fail(`${set.key}: the worker logged outcome ${run.workerOutcome}`);
        log(`  ${downloaded.rows} rows, ${mb(downloaded.bytes)} MB of CSV; raw Query x ${RAW_RUNS}`);
        const rawRuns = [];
        const eventualRuns = [];
        for (let i = 0; i < RAW_RUNS; i++) {
          rawRuns.push(await rawQuery(set));
          eventualRuns.push(await rawQuery(set, false));
        }
        for (const rawRun of [...rawRuns, ...eventualRuns])
          if (rawRun.rows !== rows)
            fail(`${set.key}: the raw Query read ${rawRun.rows} rows, ${rows} seeded`);
        const rawMs = median(rawRuns.map((r) => r.ms));
        const exportPerS = rows / (run.ms / 1000);
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
          post_to_files_ms: round(run.ms),
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
      const isolated: Record<string, unknown> = {};
      const isolatedPeaks: Record<string, number> = {};
      const isolatedLive: Record<string, number> = {};
      if (extra.operator_environment) {
        const handlerEnv = extra.operator_environment;
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
              BENCH_HANDLER_URL: pathToFileURL(`${repoRoot}functions/workers/export-analytics/handler.ts`)
                .href,
              BENCH_EVENT: JSON.stringify({
                Records: [
                  sqsRecord({
                    messageId: 'bench-1',
                    receiptHandle: 'bench',
                    body: JSON.stringify({ account_id: accountId, txid }),
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
      } else fail('stack.json lacks bucket_name, s3_endpoint or the queues: no isolated worker run');

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
          `${rowsOf(WARMUP_SET)} rows of another date that loads the worker and runs its row path; the files ` +
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
        seed: {
          items: seededItems,
          attempt_rows: attemptRows,
          duration_s: round(seedMs / 1000, 1),
          items_per_s: round(seededItems / (seedMs / 1000), 1),
          avg_attempt_item_bytes: round(itemBytes / attemptRows, 0),
          parallelism: SEED_PARALLELISM,
        },
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
            'rows_20k: export rows/s (POST -> files 200) / raw paginated Query rows/s',
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
