import { describe, expect, it } from 'vitest';
import { knownOrderStops } from '../../bench/known-order';
import { computeEtas, type LatLng } from '../../functions/domain/etas';
import { searchShortestPath } from '../../functions/domain/optimizer/distance-search';
import { optimizeTour } from '../../functions/domain/optimizer/optimize';
import {
  figuresOf,
  problemOf,
  type RouteTour,
  type StopToVisit,
} from '../../functions/domain/optimizer/route-problem';
import {
  costOf,
  endOf,
  pathCost,
  randomOf,
  scheduleOf,
  startOf,
  type TourProblem,
} from '../../functions/domain/optimizer/tour';

/**
 * The route optimizer on cases whose best answer is known: places in convex position, optima computed exactly
 * here (Held-Karp) and windows a known order meets. The bench measures it on TSPLIB's instances, whose files
 * are not in the repository (bench/tsplib/README.md).
 */

const DEPOT: LatLng = { latitude: 41.85, longitude: -87.65 };
const T0 = Date.UTC(2026, 10, 23, 13, 0);

const stop = (location: LatLng, extra: Partial<StopToVisit> = {}): StopToVisit => ({
  location,
  serviceTimeMinutes: 5,
  timeWindows: [],
  locked: false,
  ...extra,
});

/** `n` places on a circle around the depot (in convex position: the shortest tour goes round the circle), shuffled. */
function circle(n: number, seed = 7): { stops: StopToVisit[]; angles: number[] } {
  const random = randomOf(seed);
  const angles = Array.from({ length: n }, (_, index) => (2 * Math.PI * index) / n);
  for (let index = n - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [angles[index], angles[other]] = [angles[other] as number, angles[index] as number];
  }
  const stops = angles.map((angle) =>
    stop({
      latitude: DEPOT.latitude + 0.05 * Math.sin(angle),
      longitude: DEPOT.longitude + 0.07 * Math.cos(angle),
    }),
  );
  return { stops, angles };
}

/** True when the angles, visited in `order`, go round the circle one way or the other. */
function goesRound(angles: number[], order: number[]): boolean {
  const step = (2 * Math.PI) / angles.length;
  const turns = order.slice(1).map((stopIndex, index) => {
    const delta = (angles[stopIndex] as number) - (angles[order[index] as number] as number);
    return Math.round(((delta + 2 * Math.PI) % (2 * Math.PI)) / step);
  });
  return turns.every((turn) => turn === 1) || turns.every((turn) => turn === angles.length - 1);
}

/**
 * The exact shortest path from the start through every stop to the end: Held & Karp's dynamic programme over
 * subsets ("A Dynamic Programming Approach to Sequencing Problems", 1962), O(2^n n^2), so for small n only.
 */
function heldKarp(problem: TourProblem): number {
  const { n } = problem;
  const full = (1 << n) - 1;
  // best[set * n + last]: the shortest path from the start through the stops of `set`, ending at `last`.
  const best = new Float64Array((full + 1) * n).fill(Number.POSITIVE_INFINITY);
  for (let stop = 0; stop < n; stop++) best[(1 << stop) * n + stop] = costOf(problem, startOf(problem), stop);
  for (let set = 1; set <= full; set++) {
    for (let last = 0; last < n; last++) {
      const here = best[set * n + last] as number;
      if (!(set & (1 << last)) || here === Number.POSITIVE_INFINITY) continue;
      for (let next = 0; next < n; next++) {
        if (set & (1 << next)) continue;
        const into = (set | (1 << next)) * n + next;
        best[into] = Math.min(best[into] as number, here + costOf(problem, last, next));
      }
    }
  }
  let shortest = Number.POSITIVE_INFINITY;
  for (let last = 0; last < n; last++)
    shortest = Math.min(shortest, (best[full * n + last] as number) + costOf(problem, last, endOf(problem)));
  return shortest;
}

/** `n` stops drawn with `seed` over a 20 x 20 km city, in the order drawn. */
function scattered(n: number, seed: number): StopToVisit[] {
  const random = randomOf(seed);
  return Array.from({ length: n }, () =>
    stop({
      latitude: DEPOT.latitude + (random() - 0.5) * 0.18,
      longitude: DEPOT.longitude + (random() - 0.5) * 0.24,
    }),
  );
}

describe('optimizeTour', () => {
  it('goes round the circle: the shortest tour of places in convex position, from a shuffled order', () => {
    const { stops, angles } = circle(150);
    // No start or end warehouse: the tour may begin at any stop.
    const tour: RouteTour = { departAt: T0, stops };
    const result = optimizeTour(problemOf(tour));
    expect(goesRound(angles, result.order)).toBe(true);
    expect(result.after.drivingMillis).toBeLessThan(result.before.drivingMillis);
    expect(result.stoppedByTimeLimit).toBe(false);
  });

  it('finds the exact optimum of small routes (Held-Karp): round trips, one-way routes and routes without warehouses', () => {
    const elsewhere: LatLng = { latitude: 41.95, longitude: -87.55 };
    const shapes: [string, Pick<RouteTour, 'origin' | 'end'>][] = [
      ['round trip', { origin: DEPOT, end: DEPOT }],
      ['one way', { origin: DEPOT, end: elsewhere }],
      ['no end warehouse', { origin: DEPOT }],
      ['no warehouse', {}],
    ];
    const gaps: string[] = [];
    for (const [shape, ends] of shapes) {
      for (let seed = 1; seed <= 8; seed++) {
        const problem = problemOf({ departAt: T0, ...ends, stops: scattered(12, seed) });
        const optimum = heldKarp(problem);
        const { before, after } = optimizeTour(problem);
        // The order drawn is far from the best: the optimizer has work to do.
        expect(before.drivingMillis).toBeGreaterThan(optimum * 1.2);
        // Sums of the same legs in another order differ by rounding only: well under a millisecond.
        if (after.drivingMillis - optimum > 0.001)
          gaps.push(`${shape}, seed ${seed}: ${after.drivingMillis} over ${optimum}`);
      }
    }
    expect(gaps).toEqual([]);
  });

  it('gives the same order for the same input, and keeps an order nothing improves', () => {
    const { stops } = circle(80, 11);
    const tour: RouteTour = { departAt: T0, origin: DEPOT, end: DEPOT, stops };
    const first = optimizeTour(problemOf(tour));
    expect(optimizeTour(problemOf(tour)).order).toEqual(first.order);
    const again = optimizeTour(
      problemOf({ ...tour, stops: first.order.map((index) => stops[index] as StopToVisit) }),
    );
    expect(again.after).toEqual(again.before);
    expect(again.order).toEqual(first.order.map((_, index) => index));
  });

  it('keeps locked stops at their place, and the stops between them between them', () => {
    const { stops } = circle(40, 3);
    const locked = new Set([5, 17, 30]);
    const tour: RouteTour = {
      departAt: T0,
      origin: DEPOT,
      end: DEPOT,
      stops: stops.map((one, index) => ({ ...one, locked: locked.has(index) })),
    };
    const { order } = optimizeTour(problemOf(tour));
    for (const index of locked) expect(order[index]).toBe(index);
    expect(new Set(order.slice(6, 17))).toEqual(new Set(Array.from({ length: 11 }, (_, index) => index + 6)));
    expect(new Set(order)).toEqual(new Set(order.map((_, index) => index)));
  });

  it('finds an order with no late stop when the time windows fit a known order', () => {
    // The known order is the places as drawn; each window is its ETA on that order, give or take 10 minutes.
    const known = knownOrderStops({
      n: 60,
      seed: 5,
      departAt: T0,
      origin: DEPOT,
      spread: { latitude: 0.2, longitude: 0.3 },
      serviceTimeMinutes: 5,
      windowEvery: 1,
      halfWindowMinutes: 10,
    });
    // Given the other way round, so the optimizer must find an order meeting the windows itself.
    const problem = problemOf({ departAt: T0, origin: DEPOT, end: DEPOT, stops: [...known].reverse() });
    const result = optimizeTour(problem);
    expect(result.before.lateStops).toBeGreaterThan(0);
    expect(result.after.lateStops).toBe(0);
    expect(result.after.latenessMillis).toBe(0);
  });

  it('puts lateness before driving: a detour that makes no stop late wins over a shorter late order', () => {
    // Two stops on a line; the far one closes early, so it goes first even though that drives further.
    const near = stop({ latitude: 41.86, longitude: -87.65 });
    const far = stop(
      { latitude: 41.95, longitude: -87.65 },
      { timeWindows: [{ start: T0, end: T0 + 30 * 60_000 }] },
    );
    const problem = problemOf({ departAt: T0, origin: DEPOT, end: DEPOT, stops: [near, far] });
    const result = optimizeTour(problem);
    expect(result.order).toEqual([1, 0]);
    expect(result.after.lateStops).toBe(0);
    expect(scheduleOf(problem, [0, 1]).lateStops).toBe(1);
  });

  it('reports the figures the ETAs give for the same order: driving time and finish under the travel model', () => {
    const stops = [stop({ latitude: 41.9, longitude: -87.6 }), stop({ latitude: 41.95, longitude: -87.7 })];
    const tour: RouteTour = { departAt: T0, origin: DEPOT, end: DEPOT, stops };
    const problem = problemOf(tour);
    const etas = computeEtas({
      departAt: T0,
      origin: DEPOT,
      stops: stops.map((one, index) => ({ ...one, id: String(index), timeWindows: [] })),
    });
    const figures = figuresOf(tour, problem, [0, 1], scheduleOf(problem, [0, 1]));
    expect(figures.late_waypoints).toBe(0);
    expect(figures.finish_timestamp).toBeGreaterThan(etas[1]?.departure as number);
    expect(figures.distance_meters).toBeGreaterThan(10_000);
    expect(figures.driving_seconds).toBe(Math.round((figures.distance_meters / 1000 / 30) * 3600));
  });
});

describe('searchShortestPath', () => {
  it('runs its kicks, then stops at the deadline when that comes first, with a path of the same places', () => {
    const { stops } = circle(60, 2);
    const problem = problemOf({ departAt: T0, origin: DEPOT, end: DEPOT, stops });
    const path = Int32Array.from([60, ...stops.map((_, index) => index), 61]);
    const full = searchShortestPath(problem, path, {
      seed: 1,
      iterations: 500,
      deadline: Infinity,
      now: () => 0,
    });
    expect(full.iterations).toBe(500);
    expect(full.cost).toBe(pathCost(problem, full.path));
    expect([...full.path].sort((a, b) => a - b)).toEqual([...path].sort((a, b) => a - b));
    expect(full.path[0]).toBe(60);
    expect(full.path.at(-1)).toBe(61);
    const cut = searchShortestPath(problem, path, { seed: 1, iterations: 500, deadline: 0, now: () => 1 });
    expect(cut.stoppedByDeadline).toBe(true);
    expect(cut.iterations).toBe(0);
  });
});
