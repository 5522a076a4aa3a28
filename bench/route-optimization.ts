import type { LatLng } from '../functions/domain/etas';
import { OPTIMIZER_PARAMETERS, optimizeTour } from '../functions/domain/optimizer/optimize';
import { problemOf, type StopToVisit } from '../functions/domain/optimizer/route-problem';
import type { TourProblem } from '../functions/domain/optimizer/tour';
import { knownOrderStops } from './known-order';
import type { Scenario } from './scenario';
import { type Check, check, round } from './stats';
import { readTsplib, TSPLIB_INSTANCES, type TsplibName, tsplibDir, tsplibProblem } from './tsplib';

/**
 * The route optimizer's quality and speed (docs/architecture.md, "The route optimizer"), in this process with
 * the parameters the optimization worker runs with (OPTIMIZER_PARAMETERS):
 * - TSPLIB instances of 100 to 783 places against their published optima (bench/tsplib.ts): the gap of each
 *   tour found (<= 3%), their average (<= 2%), and each one's solver CPU time (<= 10 s on one core);
 * - a route of 2,000 stops (places drawn with a fixed seed over a city, a quarter of them with a time window
 *   that a known order meets): the CPU time of its whole search (<= 30 s), run without the time limit so that
 *   a busy machine cannot cut it short and hide what it costs, and its late stops (none);
 * - a route of 300 stops whose every stop has a 30-minute window that a known order meets, given in another
 *   order: the order found has no late stop.
 * CPU time is the process's (process.cpuUsage, user and system): the search runs on one thread, and a busy
 * machine stretches the wall time far more than it.
 */

const MAX_GAP_PERCENT = 3;
const MAX_AVERAGE_GAP_PERCENT = 2;
const MAX_INSTANCE_CPU_S = 10;
const MAX_LARGE_ROUTE_CPU_S = 30;

const DEPOT: LatLng = { latitude: 41.85, longitude: -87.65 };
const T0 = Date.UTC(2026, 10, 23, 13, 0);

/** Solves with the service's parameters (or these); its CPU seconds beside the result. */
function solve(problem: TourProblem, parameters = OPTIMIZER_PARAMETERS) {
  const started = process.cpuUsage();
  const result = optimizeTour(problem, parameters);
  const used = process.cpuUsage(started);
  return { result, cpuSeconds: (used.user + used.system) / 1e6 };
}

/**
 * `n` stops drawn over a 30 x 30 km city; every `windowEvery`-th one gets a window of `halfWindowMin` minutes
 * either side of its ETA on the order they were drawn in (which therefore meets them all); returned reversed,
 * so the optimizer does not start from that order.
 */
function knownOrderRoute(n: number, windowEvery: number, halfWindowMin: number, seed: number): StopToVisit[] {
  return knownOrderStops({
    n,
    seed,
    departAt: T0,
    origin: DEPOT,
    spread: { latitude: 0.27, longitude: 0.36 },
    serviceTimeMinutes: 2,
    windowEvery,
    halfWindowMinutes: halfWindowMin,
  }).reverse();
}

export const routeOptimizationScenario: Scenario = {
  name: 'route_optimization',
  needsRuntime: false,
  async run({ log }) {
    const checks: Record<string, Check> = {};
    const instances: Record<string, unknown> = {};
    const gaps: number[] = [];
    const missing: string[] = [];
    for (const [name, optimum] of Object.entries(TSPLIB_INSTANCES) as [TsplibName, number][]) {
      const places = readTsplib(name);
      if (!places) {
        missing.push(name);
        continue;
      }
      log(`route_optimization: ${name} (${places.length} places)`);
      const { result, cpuSeconds } = solve(tsplibProblem(places));
      const gap = (result.after.drivingMillis / optimum - 1) * 100;
      gaps.push(gap);
      instances[name] = {
        places: places.length,
        optimum,
        found: result.after.drivingMillis,
        gap_percent: round(gap, 2),
        cpu_s: round(cpuSeconds, 2),
        stopped_by_time_limit: result.stoppedByTimeLimit,
      };
      checks[`${name}_gap_percent`] = check(
        gap,
        '<=',
        MAX_GAP_PERCENT,
        `tour found over TSPLIB's optimum ${optimum}`,
      );
      checks[`${name}_cpu_s`] = check(cpuSeconds, '<=', MAX_INSTANCE_CPU_S, 'solver CPU time, one core');
    }
    const average = gaps.length ? gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length : Number.NaN;
    checks.average_gap_percent = check(
      average,
      '<=',
      MAX_AVERAGE_GAP_PERCENT,
      `mean over the ${gaps.length} instances found in ${tsplibDir()}`,
    );
    // Every instance must be measured: a missing file fails the check rather than shrinking the set.
    checks.tsplib_instances_found = check(
      gaps.length,
      '>=',
      Object.keys(TSPLIB_INSTANCES).length,
      missing.length ? `missing: ${missing.join(', ')} (bench/tsplib/README.md)` : 'every instance',
    );

    log('route_optimization: a route of 2,000 stops');
    const large = solve(
      problemOf({ departAt: T0, origin: DEPOT, end: DEPOT, stops: knownOrderRoute(2000, 4, 30, 1) }),
      { ...OPTIMIZER_PARAMETERS, timeLimitMs: Number.POSITIVE_INFINITY },
    );
    checks.large_route_cpu_s = check(
      large.cpuSeconds,
      '<=',
      MAX_LARGE_ROUTE_CPU_S,
      '2,000 stops, the whole search (no time limit), solver CPU time',
    );
    checks.large_route_late_stops = check(
      large.result.after.lateStops,
      '<=',
      0,
      '2,000 stops, 500 windows a known order meets',
    );

    log('route_optimization: 300 stops with windows a known order meets');
    const windowed = solve(
      problemOf({ departAt: T0, origin: DEPOT, end: DEPOT, stops: knownOrderRoute(300, 1, 15, 2) }),
    );
    checks.windows_late_stops = check(
      windowed.result.after.lateStops,
      '<=',
      0,
      '300 stops, each a 30-minute window',
    );

    const summary = (run: ReturnType<typeof solve>) => ({
      cpu_s: round(run.cpuSeconds, 2),
      late_stops_before: run.result.before.lateStops,
      late_stops_after: run.result.after.lateStops,
      driving_hours_before: round(run.result.before.drivingMillis / 3_600_000, 2),
      driving_hours_after: round(run.result.after.drivingMillis / 3_600_000, 2),
      stopped_by_time_limit: run.result.stoppedByTimeLimit,
    });
    return {
      description:
        'the route optimizer: TSPLIB gaps to the published optima, a 2,000-stop route, time windows a known order meets',
      errors: 0,
      parameters: OPTIMIZER_PARAMETERS,
      tsplib: instances,
      average_gap_percent: round(average, 2),
      large_route: summary(large),
      windowed_route: summary(windowed),
      checks,
    };
  },
};
