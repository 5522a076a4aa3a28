import {
  costOf,
  endOf,
  type Schedule,
  serviceStart,
  startOf,
  type TimeWindow,
  type TourProblem,
} from './tour';

/**
 * Local search on the route's own objective, lateness first and driving time second, for routes with time
 * windows: a stop is moved elsewhere in its segment (relocation, Or 1976) or two stops trade places, and a
 * move is made when it makes the schedule better in that order. Each move is evaluated exactly, by running the
 * schedule from the first position it changes, and no further than where the driver's times become the ones
 * the order had (waiting at a window absorbs a change: what follows is then as before). Deterministic: the
 * moves are tried in a fixed order; the deadline may cut it short.
 */

export interface LatenessSearchOptions {
  /** Positions either side of a stop that relocations and swaps try. */
  reach: number;
  deadline: number;
  now: () => number;
}

/** The schedule's running totals after each position of an order. */
interface Prefix {
  /** When the driver leaves the stop at each position. */
  departure: Float64Array;
  lateness: Float64Array;
  driving: Float64Array;
}

/**
 * Improves `order` (stop numbers) in place within `segments` (ranges of positions whose stops may move among
 * themselves, [from, to) each); returns its schedule and whether the deadline ended the search.
 */
export function searchLateness(
  problem: TourProblem,
  order: Int32Array,
  segments: readonly (readonly [number, number])[],
  options: LatenessSearchOptions,
): { schedule: Schedule; stoppedByDeadline: boolean } {
  const prefix = prefixOf(problem, order);
  let improved = true;
  let stoppedByDeadline = false;
  while (improved && !stoppedByDeadline) {
    improved = false;
    for (const [from, to] of segments) {
      for (let i = from; i < to && !stoppedByDeadline; i++) {
        if (options.now() >= options.deadline) {
          stoppedByDeadline = true;
          break;
        }
        const low = Math.max(from, i - options.reach);
        const high = Math.min(to - 1, i + options.reach);
        for (let j = low; j <= high; j++) {
          if (j === i) continue;
          if (
            tryMove(problem, order, prefix, i, j, 'relocate') ||
            tryMove(problem, order, prefix, i, j, 'swap')
          ) {
            improved = true;
            break;
          }
        }
      }
    }
  }
  return { schedule: totalsOf(problem, order, prefix), stoppedByDeadline };
}

function prefixOf(problem: TourProblem, order: Int32Array): Prefix {
  const prefix: Prefix = {
    departure: new Float64Array(order.length),
    lateness: new Float64Array(order.length),
    driving: new Float64Array(order.length),
  };
  refresh(problem, order, prefix, 0);
  return prefix;
}

/** Recomputes the running totals from position `from` on. */
function refresh(problem: TourProblem, order: Int32Array, prefix: Prefix, from: number): void {
  let t = from === 0 ? problem.departAt : (prefix.departure[from - 1] as number);
  let lateness = from === 0 ? 0 : (prefix.lateness[from - 1] as number);
  let driving = from === 0 ? 0 : (prefix.driving[from - 1] as number);
  let at = from === 0 ? startOf(problem) : (order[from - 1] as number);
  for (let index = from; index < order.length; index++) {
    const stop = order[index] as number;
    const leg = costOf(problem, at, stop);
    const service = serviceStart(t + leg, problem.windows[stop] as readonly TimeWindow[]);
    t = service.at + (problem.serviceMillis[stop] as number);
    lateness += service.late;
    driving += leg;
    prefix.departure[index] = t;
    prefix.lateness[index] = lateness;
    prefix.driving[index] = driving;
    at = stop;
  }
}

function totalsOf(problem: TourProblem, order: Int32Array, prefix: Prefix): Schedule {
  const last = order.length - 1;
  const lastStop = last >= 0 ? (order[last] as number) : startOf(problem);
  const toEnd = costOf(problem, lastStop, endOf(problem));
  let lateStops = 0;
  for (let index = 0; index <= last; index++) {
    const before = index === 0 ? 0 : (prefix.lateness[index - 1] as number);
    if ((prefix.lateness[index] as number) > before) lateStops++;
  }
  return {
    latenessMillis: last >= 0 ? (prefix.lateness[last] as number) : 0,
    lateStops,
    drivingMillis: (last >= 0 ? (prefix.driving[last] as number) : 0) + toEnd,
    finish: (last >= 0 ? (prefix.departure[last] as number) : problem.departAt) + toEnd,
  };
}

/**
 * Tries one move of the stop at position i (relocate it to position j, or swap it with the stop at j): made,
 * with the totals refreshed, when the schedule gets better (lateness, then driving); true then.
 */
function tryMove(
  problem: TourProblem,
  order: Int32Array,
  prefix: Prefix,
  i: number,
  j: number,
  kind: 'relocate' | 'swap',
): boolean {
  const from = Math.min(i, j);
  const to = Math.max(i, j);
  const changed = new Int32Array(to - from + 1);
  if (kind === 'swap') {
    changed.set(order.subarray(from, to + 1));
    changed[0] = order[to] as number;
    changed[changed.length - 1] = order[from] as number;
  } else if (i < j) {
    changed.set(order.subarray(i + 1, j + 1));
    changed[changed.length - 1] = order[i] as number;
  } else {
    changed[0] = order[i] as number;
    changed.set(order.subarray(j, i), 1);
  }
  const shorter = drivingChange(problem, order, from, changed) < -0.5;
  const lateness = prefix.lateness[order.length - 1] as number;
  // No lateness to take away: only a shorter order can be better, and the driving change says so at once.
  if (!shorter && lateness <= 0.5) return false;
  if (!improves(problem, order, prefix, from, changed, lateness, shorter)) return false;
  order.set(changed, from);
  refresh(problem, order, prefix, from);
  return true;
}

/** How much longer the drive gets with positions from..from+changed.length-1 replaced by `changed`. */
function drivingChange(problem: TourProblem, order: Int32Array, from: number, changed: Int32Array): number {
  const to = from + changed.length - 1;
  const before = from === 0 ? startOf(problem) : (order[from - 1] as number);
  const after = to === order.length - 1 ? endOf(problem) : (order[to + 1] as number);
  let change = 0;
  let oldAt = before;
  let newAt = before;
  for (let index = 0; index < changed.length; index++) {
    change +=
      costOf(problem, newAt, changed[index] as number) -
      costOf(problem, oldAt, order[from + index] as number);
    newAt = changed[index] as number;
    oldAt = order[from + index] as number;
  }
  return change + costOf(problem, newAt, after) - costOf(problem, oldAt, after);
}

/**
 * Whether the order with positions from..from+changed.length-1 replaced by `changed` is better: less late
 * than `lateness` (the order's), or as late and `shorter`. The schedule is run from `from`, and only as far as
 * it takes to know: lateness only grows along the route, and past the change a driver who leaves a stop no
 * later than before is late at none of the stops after it by more than before (no earlier: by no less), since
 * arriving later never starts a service earlier (serviceStart). So the rest of the route bounds the answer by
 * the order's own lateness after that stop, and the answer is the one the whole schedule would give.
 */
function improves(
  problem: TourProblem,
  order: Int32Array,
  prefix: Prefix,
  from: number,
  changed: Int32Array,
  lateness: number,
  shorter: boolean,
): boolean {
  const better = (newLateness: number) =>
    newLateness < lateness - 0.5 || (shorter && newLateness <= lateness + 0.5);
  let t = from === 0 ? problem.departAt : (prefix.departure[from - 1] as number);
  let late = from === 0 ? 0 : (prefix.lateness[from - 1] as number);
  let at = from === 0 ? startOf(problem) : (order[from - 1] as number);
  const last = order.length - 1;
  for (let index = from; index <= last; index++) {
    const inChange = index - from < changed.length;
    const stop = inChange ? (changed[index - from] as number) : (order[index] as number);
    const service = serviceStart(
      t + costOf(problem, at, stop),
      problem.windows[stop] as readonly TimeWindow[],
    );
    t = service.at + (problem.serviceMillis[stop] as number);
    late += service.late;
    at = stop;
    if (late > lateness + 0.5) return false;
    if (inChange) continue;
    const departed = prefix.departure[index] as number;
    // With the order's lateness after this stop: exact when the driver leaves it when the order does.
    const bound = late + (prefix.lateness[last] as number) - (prefix.lateness[index] as number);
    if (t === departed) return better(bound);
    if (t < departed && better(bound)) return true;
    if (t > departed && !better(bound)) return false;
  }
  return better(late);
}
