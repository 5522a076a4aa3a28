import { performance } from 'node:perf_hooks';
import { analyticsItem, analyticsKeys } from '../functions/data/analytics';
import { putAll } from '../functions/data/client';
import { headerItem } from '../functions/data/routes';
import * as analytics from '../functions/domain/analytics';
import { type BenchDc, routeFacts } from './analytics-data';
import { itemSize, type RawTable, type Row } from './dynamo';
import type { ApiClient } from './http';
import { round } from './stats';

/**
 * The analytics bench's data sets (bench/analytics.ts): date windows of the demo DC, their rows, and their
 * seeding through the data layer.
 */

export const ATTEMPTS_PER_ROUTE = 100;
const SEED_PARALLELISM = 16;

export interface DataSet {
  key: 'warmup' | 'rows_20k' | 'rows_200k';
  /** Consecutive DC-local dates: one export request covers them all. */
  dates: string[];
  routesPerDate: number;
  /**
   * Exports of the window measured, each followed by the raw Queries (analytics.ts): the ratio takes their
   * median. A 20,000-row export takes a few seconds, where the queue's and the polling's latency weigh.
   */
  exportRuns?: number;
}

/** Two date windows of the demo DC (it has one DC), far from today and from each other. */
export const SETS: readonly [DataSet, DataSet] = [
  { key: 'rows_20k', dates: consecutiveDates('2024-03-04', 4), routesPerDate: 50, exportRuns: 3 },
  { key: 'rows_200k', dates: consecutiveDates('2024-04-01', 10), routesPerDate: 200 },
];
/**
 * Exported first, not measured: loads the worker's handler in the runtime and runs its row path (CSV,
 * multipart upload) before the measured exports, as a warm Lambda would have.
 */
export const WARMUP_SET: DataSet = {
  key: 'warmup',
  dates: consecutiveDates('2024-02-05', 1),
  routesPerDate: 20,
};

export const rowsOf = (set: DataSet) => set.dates.length * set.routesPerDate * ATTEMPTS_PER_ROUTE;

function consecutiveDates(first: string, count: number): string[] {
  const day = Date.parse(`${first}T00:00:00Z`);
  return Array.from({ length: count }, (_, i) => new Date(day + i * 86_400_000).toISOString().slice(0, 10));
}

/** What the analytics bench's steps share: the demo DC, the clients, and where errors and progress go. */
export interface AnalyticsBench {
  accountId: string;
  dc: BenchDc;
  api: ApiClient;
  raw: RawTable;
  /** The local runtime's log file (the worker logs a line per export there). */
  logFile: string;
  runId: string;
  abort: AbortSignal;
  log(message: string): void;
  /** Records an error (the scenario counts them) and logs it. */
  fail(message: string): void;
}

const place = (bench: AnalyticsBench, date: string, routeId: string) => ({
  accountId: bench.accountId,
  dcId: bench.dc.dcId,
  localDate: date,
  routeId,
});

/** The analytics partition of one date of the demo DC. */
export const partitionOf = (bench: AnalyticsBench, date: string) =>
  analyticsKeys.route(place(bench, date, '')).pk;

/** The generated route `index` of `date`, its facts and its attempt rows. */
export function rowsOfRoute(bench: AnalyticsBench, date: string, index: number) {
  const { routeId, facts } = routeFacts(analytics, bench.dc, bench.accountId, date, index);
  return { routeId, facts, attempts: analytics.attemptAnalytics(facts) };
}

/**
 * Seeds every set through the data layer: attempts first, the route record last (as the service writes);
 * what it wrote and how fast, for the JSON.
 */
export async function seedSets(bench: AnalyticsBench) {
  const { abort, log } = bench;
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
        const { routeId, facts, attempts } = rowsOfRoute(bench, date, index);
        if (attempts.length !== ATTEMPTS_PER_ROUTE || attempts[0]?.planned_route_start_date !== date)
          throw new Error(`generated route ${routeId}: ${attempts.length} attempts on ${date}?`);
        for (const [sequence, row] of attempts.entries())
          attemptItems.push(
            analyticsItem(
              analyticsKeys.attempt(place(bench, date, routeId), sequence),
              'ATTEMPT_ANALYTICS',
              routeId,
              row,
            ),
          );
        routeItems.push(
          analyticsItem(
            analyticsKeys.route(place(bench, date, routeId)),
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
  return {
    items: seededItems,
    attempt_rows: attemptRows,
    duration_s: round(seedMs / 1000, 1),
    items_per_s: round(seededItems / (seedMs / 1000), 1),
    avg_attempt_item_bytes: round(itemBytes / attemptRows, 0),
    parallelism: SEED_PARALLELISM,
  };
}
