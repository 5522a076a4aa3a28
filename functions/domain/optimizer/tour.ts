/**
 * The problem the route optimizer solves, in its own terms: stops to visit from a start to an end, with a
 * cost (driving time) between every two places, service times and time windows. Pure: no I/O, no clock.
 *
 * Places are numbered: the stops 0..n-1, then the start (n) and the end (n+1). A start or end that is no
 * place (a route without a start or end warehouse) costs nothing to or from any stop, so the tour may begin
 * or end at whichever stop suits it, as the ETAs begin at the first stop of such a route.
 */

export interface TimeWindow {
  start: number;
  end: number;
}

export interface TourProblem {
  /** Number of stops to visit. */
  n: number;
  /**
   * Driving time in ms between places, row-major over the n + 2 places (cost[a * (n + 2) + b]); symmetric,
   * as the service's travel model is (functions/domain/etas.ts).
   */
  cost: Float64Array;
  /** Epoch ms when the driver leaves the start. */
  departAt: number;
  serviceMillis: readonly number[];
  /** Each stop's windows (none: any time will do). */
  windows: readonly (readonly TimeWindow[])[];
  /** Stops that keep their place in the order (by index into the current order). */
  locked: readonly boolean[];
}

export const startOf = (problem: Pick<TourProblem, 'n'>) => problem.n;
export const endOf = (problem: Pick<TourProblem, 'n'>) => problem.n + 1;
export const costOf = (problem: Pick<TourProblem, 'n' | 'cost'>, a: number, b: number) =>
  problem.cost[a * (problem.n + 2) + b] as number;

/** What an order achieves: the optimizer's objective, lateness first and driving time second. */
export interface Schedule {
  /** Sum of the lateness of every late stop, ms. */
  latenessMillis: number;
  lateStops: number;
  drivingMillis: number;
  /** When the driver reaches the end (or leaves the last stop, without an end). */
  finish: number;
}

/**
 * When service can start for a driver arriving at `arrival`, and how late that is: within a window, at once;
 * before one, at its opening; after every window closed, on arrival, late by the time since the last one
 * closed (the ETAs' rule, functions/domain/etas.ts).
 */
export function serviceStart(arrival: number, windows: readonly TimeWindow[]): { at: number; late: number } {
  if (windows.length === 0) return { at: arrival, late: 0 };
  let opening = Number.POSITIVE_INFINITY;
  let lastEnd = Number.NEGATIVE_INFINITY;
  for (const window of windows) {
    if (window.start <= arrival && arrival < window.end) return { at: arrival, late: 0 };
    if (window.start > arrival && window.start < opening) opening = window.start;
    if (window.end > lastEnd) lastEnd = window.end;
  }
  if (opening !== Number.POSITIVE_INFINITY) return { at: opening, late: 0 };
  return { at: arrival, late: arrival - lastEnd };
}

/** The schedule of visiting `order` (stop numbers) from the start to the end. */
export function scheduleOf(problem: TourProblem, order: ArrayLike<number>): Schedule {
  let t = problem.departAt;
  let at = startOf(problem);
  let latenessMillis = 0;
  let lateStops = 0;
  let drivingMillis = 0;
  for (let index = 0; index < order.length; index++) {
    const stop = order[index] as number;
    const leg = costOf(problem, at, stop);
    drivingMillis += leg;
    const service = serviceStart(t + leg, problem.windows[stop] as readonly TimeWindow[]);
    if (service.late > 0) {
      latenessMillis += service.late;
      lateStops++;
    }
    t = service.at + (problem.serviceMillis[stop] as number);
    at = stop;
  }
  const last = costOf(problem, at, endOf(problem));
  return { latenessMillis, lateStops, drivingMillis: drivingMillis + last, finish: t + last };
}

/** Lateness first, driving time second: negative when `a` is better. */
export function compareSchedules(a: Schedule, b: Schedule): number {
  return a.latenessMillis - b.latenessMillis || a.drivingMillis - b.drivingMillis;
}

/** The driving time of a path of places (no schedule): what the distance search minimises. */
export function pathCost(problem: Pick<TourProblem, 'n' | 'cost'>, path: ArrayLike<number>): number {
  let total = 0;
  for (let index = 1; index < path.length; index++)
    total += costOf(problem, path[index - 1] as number, path[index] as number);
  return total;
}

/**
 * A seeded pseudo-random generator (mulberry32): the search draws every random choice from it, so the same
 * problem and seed give the same order.
 */
export function randomOf(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The `k` nearest other places of each place among `candidates` (by cost, ties by number), nearest first:
 * the moves the search tries from a place are towards these.
 */
export function neighbourLists(
  problem: Pick<TourProblem, 'n' | 'cost'>,
  candidates: readonly number[],
  k: number,
): Map<number, Int32Array> {
  const lists = new Map<number, Int32Array>();
  const size = Math.min(k, candidates.length - 1);
  const best = new Int32Array(size);
  const bestCost = new Float64Array(size);
  for (const a of candidates) {
    let filled = 0;
    for (const b of candidates) {
      if (b === a) continue;
      const c = costOf(problem, a, b);
      if (filled === size && c >= (bestCost[size - 1] as number)) continue;
      let at = filled < size ? filled++ : size - 1;
      while (at > 0 && (bestCost[at - 1] as number) > c) {
        best[at] = best[at - 1] as number;
        bestCost[at] = bestCost[at - 1] as number;
        at--;
      }
      best[at] = b;
      bestCost[at] = c;
    }
    lists.set(a, best.slice(0, filled));
  }
  return lists;
}
