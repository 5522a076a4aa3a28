import { searchShortestPath } from './distance-search';
import { searchLateness } from './lateness-search';
import { compareSchedules, endOf, type Schedule, scheduleOf, startOf, type TourProblem } from './tour';

/**
 * The route optimizer (docs/api.md, "Optimizations"; docs/architecture.md, "The route optimizer"): the order
 * in which to visit the stops of a TourProblem, lateness first and driving time second, never worse than the
 * order given, and the same order for the same problem and parameters (unless the time limit cuts it short).
 *
 * 1. Locked stops cut the order into segments: each keeps its place, and the stops between two of them (or a
 *    locked one and the start or end) are reordered among themselves.
 * 2. Each segment's shortest path between its ends (distance-search.ts: iterated 2-opt and Or-opt).
 * 3. With time windows: the best of the order given, the shortest one and each segment by its earliest
 *    deadline first (the stops' last window end), then the lateness search (lateness-search.ts) from it.
 * 4. The better of that and the order given.
 */

export interface OptimizerParameters {
  /** Seeds every random choice of the search. */
  seed: number;
  /** Kicks of the distance search per stop of a segment. */
  iterationsPerStop: number;
  /** Nearest neighbours the distance search tries moves towards. */
  neighbours: number;
  /** Positions either side of a stop the lateness search tries. */
  latenessReach: number;
  /** The most time the search may take, ms: it stops then with the best order found. */
  timeLimitMs: number;
}

/**
 * The parameters the service runs with. 100 kicks a stop reach within 1% of the optimum on TSPLIB's
 * instances of 100 to 783 places (the bench's `route_optimization`) in a few seconds of one core.
 */
export const OPTIMIZER_PARAMETERS: OptimizerParameters = {
  seed: 1,
  iterationsPerStop: 100,
  neighbours: 10,
  latenessReach: 40,
  timeLimitMs: 30_000,
};

export interface OptimizedTour {
  /** The stops in the order to visit them. */
  order: number[];
  before: Schedule;
  after: Schedule;
  /** True when the time limit, not the work budget, ended the search (the order may then vary). */
  stoppedByTimeLimit: boolean;
}

/** Optimizes the order of `problem`'s stops (given in their current order, 0..n-1). */
export function optimizeTour(
  problem: TourProblem,
  parameters: OptimizerParameters = OPTIMIZER_PARAMETERS,
  now: () => number = () => performance.now(),
): OptimizedTour {
  const deadline = now() + parameters.timeLimitMs;
  const current = Int32Array.from({ length: problem.n }, (_, stop) => stop);
  const before = scheduleOf(problem, current);
  const segments = segmentsOf(problem);
  let stoppedByTimeLimit = false;

  const shortest = current.slice();
  for (const [from, to] of segments) {
    if (to - from < 2) continue;
    const path = Int32Array.from([
      from === 0 ? startOf(problem) : (current[from - 1] as number),
      ...current.subarray(from, to),
      to === problem.n ? endOf(problem) : (current[to] as number),
    ]);
    const found = searchShortestPath(problem, path, {
      seed: parameters.seed,
      iterations: parameters.iterationsPerStop * (to - from),
      neighbours: parameters.neighbours,
      deadline,
      now,
    });
    shortest.set(found.path.subarray(1, found.path.length - 1), from);
    stoppedByTimeLimit ||= found.stoppedByDeadline;
  }

  let best = shortest;
  if (problem.windows.some((windows) => windows.length > 0)) {
    const candidates = [shortest, current, earliestDeadlineFirst(problem, current, segments)];
    best = candidates
      .reduce((a, b) => (compareSchedules(scheduleOf(problem, b), scheduleOf(problem, a)) < 0 ? b : a))
      .slice();
    const searched = searchLateness(problem, best, segments, {
      reach: parameters.latenessReach,
      deadline,
      now,
    });
    stoppedByTimeLimit ||= searched.stoppedByDeadline;
  }
  const after = scheduleOf(problem, best);
  if (compareSchedules(after, before) >= 0)
    return { order: Array.from(current), before, after: before, stoppedByTimeLimit };
  return { order: Array.from(best), before, after, stoppedByTimeLimit };
}

/** The ranges of positions [from, to) between locked stops, whose stops may move among themselves. */
export function segmentsOf(problem: Pick<TourProblem, 'n' | 'locked'>): [number, number][] {
  const segments: [number, number][] = [];
  let from = 0;
  for (let position = 0; position <= problem.n; position++) {
    if (position === problem.n || problem.locked[position]) {
      if (position > from) segments.push([from, position]);
      from = position + 1;
    }
  }
  return segments;
}

/** Each segment's stops by their last window's end, earliest first (stops without windows last, as given). */
function earliestDeadlineFirst(
  problem: TourProblem,
  order: Int32Array,
  segments: readonly (readonly [number, number])[],
): Int32Array {
  const result = order.slice();
  const deadlineOf = (stop: number) => {
    const windows = problem.windows[stop] ?? [];
    return windows.length === 0 ? Number.POSITIVE_INFINITY : Math.max(...windows.map((window) => window.end));
  };
  for (const [from, to] of segments) {
    const stops = Array.from(order.subarray(from, to));
    stops.sort((a, b) => deadlineOf(a) - deadlineOf(b) || a - b);
    result.set(stops, from);
  }
  return result;
}
