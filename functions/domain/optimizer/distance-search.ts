import { costOf, neighbourLists, pathCost, randomOf, type TourProblem } from './tour';

/**
 * The shortest path through given stops between two fixed places, by iterated local search (Lourenço,
 * Martin & Stützle, "Iterated Local Search", 2003; Johnson & McGeoch, "The Traveling Salesman Problem: A Case
 * Study in Local Optimization", 1997, for the moves and their speed-ups):
 * - local search: 2-opt and Or-opt (a segment of 1 to 3 stops moved elsewhere, either way round), each tried
 *   only towards a stop's K nearest neighbours (neighbour lists) and only from stops whose surroundings changed
 *   since they last found nothing (don't-look bits, a queue of active stops); the first improving move found
 *   is made;
 * - kicks: a segment swap (the path's form of the double bridge: two adjacent segments of up to KICK_SPAN
 *   stops each change places), near a random stop, then local search from the stops it touched;
 * - acceptance: the kicked path is kept when it is no longer than the best one (so the search walks across
 *   equal lengths), else the best is restored.
 * Every random choice comes from a generator seeded by `seed`, and the search stops after `iterations` kicks,
 * or at `deadline` (epoch ms by `now`) if that comes first: the same problem, seed and iterations give the same
 * path unless the deadline cuts the search short.
 */

export interface DistanceSearchOptions {
  seed: number;
  /** Kicks to try. */
  iterations: number;
  /** Stop by then even if kicks are left (ms, on the clock `now` reads). */
  deadline: number;
  now: () => number;
  /** Nearest neighbours each move is tried towards. */
  neighbours?: number;
}

export interface DistanceSearchResult {
  path: Int32Array;
  cost: number;
  iterations: number;
  /** True when the deadline, not the iteration budget, ended the search. */
  stoppedByDeadline: boolean;
}

/** The most stops each of a kick's two segments holds. */
export const KICK_SPAN = 30;
const DEFAULT_NEIGHBOURS = 10;
const EPSILON = 1e-7;

/**
 * Improves `path` (places; its first and last stay where they are) and returns the best path found. Paths of
 * fewer than 4 places have nothing to improve.
 */
export function searchShortestPath(
  problem: Pick<TourProblem, 'n' | 'cost'>,
  path: Int32Array,
  options: DistanceSearchOptions,
): DistanceSearchResult {
  const length = path.length;
  if (length < 4)
    return { path: path.slice(), cost: pathCost(problem, path), iterations: 0, stoppedByDeadline: false };
  const k = options.neighbours ?? DEFAULT_NEIGHBOURS;
  // The shortest of the path as given, the nearest-neighbour path and the greedy path.
  const starts = [path, nearestNeighbourPath(problem, path), greedyPath(problem, path, k)];
  const start = starts.reduce((a, b) => (pathCost(problem, b) < pathCost(problem, a) ? b : a));
  const search = new PathSearch(problem, start, k);
  const random = randomOf(options.seed);
  search.improve();
  const best = search.tour.slice();
  search.saveTo(best);
  let bestCost = search.cost;
  let iteration = 0;
  let stoppedByDeadline = false;
  for (; iteration < options.iterations; iteration++) {
    if (iteration % 16 === 0 && options.now() >= options.deadline) {
      stoppedByDeadline = true;
      break;
    }
    search.kick(random);
    search.improve();
    if (search.cost <= bestCost + EPSILON) {
      search.saveTo(best);
      bestCost = search.cost;
    } else {
      search.reset(best, bestCost);
    }
  }
  return { path: best, cost: pathCost(problem, best), iterations: iteration, stoppedByDeadline };
}

/**
 * The nearest-neighbour path from `path`'s first place through its interior to its last: from each place, on
 * to the nearest place not yet visited (O(n^2)). A start that ties far-apart groups of stops together the way
 * a shortest path does, which local moves between near neighbours cannot change.
 */
export function nearestNeighbourPath(problem: Pick<TourProblem, 'n' | 'cost'>, path: Int32Array): Int32Array {
  const result = path.slice();
  const left = Array.from(path.subarray(1, path.length - 1));
  let at = path[0] as number;
  for (let index = 1; index < path.length - 1; index++) {
    let best = 0;
    let bestCost = Number.POSITIVE_INFINITY;
    for (let candidate = 0; candidate < left.length; candidate++) {
      const c = costOf(problem, at, left[candidate] as number);
      if (c < bestCost) {
        bestCost = c;
        best = candidate;
      }
    }
    at = left[best] as number;
    left[best] = left[left.length - 1] as number;
    left.pop();
    result[index] = at;
  }
  return result;
}

/**
 * The greedy-edge path (Johnson & McGeoch's "Greedy" start): the candidate edges (each place to its
 * neighbours) taken shortest first whenever both ends still have a free side and no cycle closes, the two
 * anchors taking one edge each; the fragments left are then joined end to end, nearest end first, from the
 * first anchor.
 */
export function greedyPath(
  problem: Pick<TourProblem, 'n' | 'cost'>,
  path: Int32Array,
  k: number,
): Int32Array {
  const first = path[0] as number;
  const last = path[path.length - 1] as number;
  const places = Array.from(path);
  const lists = neighbourLists(problem, places, k);
  const edges: [number, number, number][] = [];
  for (const [a, list] of lists)
    for (const b of list) if (a < b || !lists.get(b)?.includes(a)) edges.push([costOf(problem, a, b), a, b]);
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
  const degree = new Map(places.map((place) => [place, 0]));
  const capacity = (place: number) => (place === first || place === last ? 1 : 2);
  const links = new Map<number, number[]>(places.map((place) => [place, []]));
  const root = new Map(places.map((place) => [place, place]));
  const find = (place: number): number => {
    let at = place;
    while (root.get(at) !== at) at = root.get(at) as number;
    root.set(place, at);
    return at;
  };
  for (const [, a, b] of edges) {
    if ((degree.get(a) as number) >= capacity(a) || (degree.get(b) as number) >= capacity(b)) continue;
    if (find(a) === find(b)) continue;
    // The anchors' fragments are never joined: the others go between them.
    const joins = new Set([find(a), find(b)]);
    if (joins.has(find(first)) && joins.has(find(last))) continue;
    root.set(find(a), find(b));
    degree.set(a, (degree.get(a) as number) + 1);
    degree.set(b, (degree.get(b) as number) + 1);
    links.get(a)?.push(b);
    links.get(b)?.push(a);
  }
  // The last anchor's fragment ends the path; the others are walked from the first anchor's, each joined at
  // the free end nearest to where the path is.
  const visited = new Set<number>();
  const fragmentFrom = (from: number): number[] => {
    const walked: number[] = [];
    let previous = -1;
    let current: number | undefined = from;
    while (current !== undefined) {
      walked.push(current);
      visited.add(current);
      const here: number = current;
      const next = (links.get(here) ?? []).find((place) => place !== previous && !visited.has(place));
      previous = here;
      current = next;
    }
    return walked;
  };
  const tail = fragmentFrom(last).reverse();
  const order = fragmentFrom(first);
  while (order.length + tail.length < path.length) {
    const at = order.at(-1) as number;
    let best = -1;
    let bestCost = Number.POSITIVE_INFINITY;
    for (const place of places) {
      if (visited.has(place) || (degree.get(place) as number) >= 2) continue;
      const c = costOf(problem, at, place);
      if (c < bestCost) {
        bestCost = c;
        best = place;
      }
    }
    order.push(...fragmentFrom(best));
  }
  return Int32Array.from([...order, ...tail]);
}

/** A path under local search: the places in order, where each one is, and the moves. */
class PathSearch {
  readonly tour: Int32Array;
  /** Position of each place in `tour` (indexed by place number); -1 for places not on it. */
  private readonly position: Int32Array;
  private readonly neighbours: Map<number, Int32Array>;
  private readonly queue: number[] = [];
  private readonly queued: Uint8Array;
  /**
   * The positions changed since the last save or reset (from > to: none). Kicks and the moves after them are
   * local, so saving or restoring only these keeps a kick's cost independent of the path's length.
   */
  private changedFrom = Number.POSITIVE_INFINITY;
  private changedTo = -1;
  cost: number;

  constructor(
    private readonly problem: Pick<TourProblem, 'n' | 'cost'>,
    path: Int32Array,
    k: number,
  ) {
    this.tour = path.slice();
    this.position = new Int32Array(problem.n + 2).fill(-1);
    this.queued = new Uint8Array(problem.n + 2);
    this.tour.forEach((place, index) => {
      this.position[place] = index;
    });
    // The anchors take part (a move may end at one), unless one is no place: it costs nothing to anything.
    const interior = Array.from(this.tour.subarray(1, this.tour.length - 1));
    const anchors = [this.at(0), this.at(this.tour.length - 1)].filter((anchor) =>
      interior.some((place) => this.c(anchor, place) > 0),
    );
    this.neighbours = neighbourLists(problem, [...interior, ...new Set(anchors)], k);
    this.cost = pathCost(problem, this.tour);
    for (const place of this.tour) this.activate(place);
  }

  private c(a: number, b: number): number {
    return costOf(this.problem, a, b);
  }

  private at(index: number): number {
    return this.tour[index] as number;
  }

  private activate(place: number): void {
    if (this.queued[place]) return;
    this.queued[place] = 1;
    this.queue.push(place);
  }

  private changed(from: number, to: number): void {
    if (from < this.changedFrom) this.changedFrom = from;
    if (to > this.changedTo) this.changedTo = to;
  }

  /** Makes `best` this path, given that it was at the last save or reset. */
  saveTo(best: Int32Array): void {
    if (this.changedFrom <= this.changedTo)
      best.set(this.tour.subarray(this.changedFrom, this.changedTo + 1), this.changedFrom);
    this.changedFrom = Number.POSITIVE_INFINITY;
    this.changedTo = -1;
  }

  /** Back to `best` (the path at the last save or reset) and its cost. */
  reset(best: Int32Array, cost: number): void {
    for (let index = this.changedFrom; index <= this.changedTo; index++) {
      const place = best[index] as number;
      this.tour[index] = place;
      this.position[place] = index;
    }
    this.changedFrom = Number.POSITIVE_INFINITY;
    this.changedTo = -1;
    this.cost = cost;
  }

  /** Local search until no active place finds an improving move. */
  improve(): void {
    // First in, first out; read by index, as shift() would move the whole queue each time.
    for (let next = 0; next < this.queue.length; next++) {
      const place = this.queue[next] as number;
      this.queued[place] = 0;
      while (this.twoOpt(place) || this.orOpt(place)) {
        // The place found a move: try it again, its surroundings changed.
      }
    }
    this.queue.length = 0;
  }

  /**
   * Books a move just made: its `delta` into the cost, and the places whose edges it changed queued again, in
   * order. True, for the move functions to answer with.
   */
  private improvedBy(delta: number, ...touched: number[]): true {
    this.cost += delta;
    for (const place of touched) this.activate(place);
    return true;
  }

  /** Reverses tour[from..to] (inclusive) and updates positions. */
  private reverse(from: number, to: number): void {
    this.changed(from, to);
    for (let i = from, j = to; i < j; i++, j--) {
      const a = this.at(i);
      const b = this.at(j);
      this.tour[i] = b;
      this.tour[j] = a;
      this.position[b] = i;
      this.position[a] = j;
    }
  }

  /** The first improving 2-opt move from `a` towards its neighbours, made; false when there is none. */
  private twoOpt(a: number): boolean {
    const p = this.position[a] as number;
    const last = this.tour.length - 1;
    const list = this.neighbours.get(a);
    if (!list) return false;
    // Plain loops, no arrays made: the moves are tried millions of times on a large route, and collecting
    // such arrays took about a fifth of a 1,000-stop search in a CPU profile.
    for (let direction = 1; direction >= -1; direction -= 2) {
      const q0 = p + direction;
      if (q0 < 0 || q0 > last) continue;
      const b = this.at(q0);
      const ab = this.c(a, b);
      for (const c of list) {
        const ac = this.c(a, c);
        if (ac >= ab) break;
        const q = this.position[c] as number;
        const r = q + direction;
        if (q < 0 || r < 0 || r > last || c === b) continue;
        const d = this.at(r);
        if (d === a) continue;
        const delta = ac + this.c(b, d) - ab - this.c(c, d);
        if (delta >= -EPSILON) continue;
        // Edges (a,b) and (c,d) become (a,c) and (b,d): reverse what lies between a and c.
        if (direction === 1) {
          if (q > p) this.reverse(p + 1, q);
          else this.reverse(q + 1, p);
        } else if (q < p) this.reverse(q, p - 1);
        else this.reverse(p, q - 1);
        return this.improvedBy(delta, a, b, c, d);
      }
    }
    return false;
  }

  /**
   * Moves tour[from..from+k-1] to lie between tour[after] and tour[after+1] (after outside the segment),
   * reversed or not, shifting what lies between.
   */
  private moveSegment(from: number, k: number, after: number, reversed: boolean): void {
    const segment = this.tour.slice(from, from + k);
    if (reversed) segment.reverse();
    this.changed(Math.min(from, after + 1), Math.max(from + k - 1, after));
    if (after > from) {
      // Shift tour[from+k..after] left by k, then put the segment at after-k+1.
      this.tour.copyWithin(from, from + k, after + 1);
      this.tour.set(segment, after - k + 1);
      for (let i = from; i <= after; i++) this.position[this.at(i)] = i;
    } else {
      // Shift tour[after+1..from-1] right by k, then put the segment at after+1.
      this.tour.copyWithin(after + 1 + k, after + 1, from);
      this.tour.set(segment, after + 1);
      for (let i = after + 1; i < from + k; i++) this.position[this.at(i)] = i;
    }
  }

  /**
   * The first improving Or-opt move of a segment that starts or ends at `a` (1 to 3 places) to between a
   * neighbour of its ends and that neighbour's successor or predecessor; false when there is none.
   */
  private orOpt(a: number): boolean {
    const p = this.position[a] as number;
    const last = this.tour.length - 1;
    for (let k = 1; k <= 3; k++) {
      for (let starts = 0; starts < (k === 1 ? 1 : 2); starts++) {
        const from = starts === 0 ? p : p - k + 1;
        const to = from + k - 1;
        if (from < 1 || to > last - 1) continue;
        const prev = this.at(from - 1);
        const next = this.at(to + 1);
        const first = this.at(from);
        const lastOfSegment = this.at(to);
        const removal = this.c(prev, first) + this.c(lastOfSegment, next) - this.c(prev, next);
        if (removal <= EPSILON) continue;
        for (let ends = 0; ends < (k === 1 ? 1 : 2); ends++) {
          const end = ends === 0 ? first : lastOfSegment;
          const list = this.neighbours.get(end);
          if (!list) continue;
          for (const x of list) {
            if (this.c(end, x) >= removal) break;
            const q = this.position[x] as number;
            if (q < 0 || (q >= from && q <= to)) continue;
            // Between x and its successor, and between its predecessor and x.
            for (let side = 0; side < 2; side++) {
              const left = side === 0 ? q : q - 1;
              const right = left + 1;
              if (left < 0 || right > last || (left >= from - 1 && right <= to + 1)) continue;
              const l = this.at(left);
              const r = this.at(right);
              const asIs = this.c(l, first) + this.c(lastOfSegment, r);
              const flipped = this.c(l, lastOfSegment) + this.c(first, r);
              const added = Math.min(asIs, flipped) - this.c(l, r);
              const delta = added - removal;
              if (delta >= -EPSILON) continue;
              this.moveSegment(from, k, left, flipped < asIs);
              return this.improvedBy(delta, prev, next, first, lastOfSegment, l, r);
            }
          }
        }
      }
    }
    return false;
  }

  /**
   * Swaps two adjacent segments near a random place (each 1..KICK_SPAN places long): the path's double bridge,
   * three edges changed at once, which 2-opt and Or-opt alone rarely undo.
   */
  kick(random: () => number): void {
    const interior = this.tour.length - 2;
    if (interior < 3) return;
    const span = Math.min(KICK_SPAN, Math.floor(interior / 2));
    const first = 1 + Math.floor(random() * span);
    const second = 1 + Math.floor(random() * span);
    const from = 1 + Math.floor(random() * (interior - first - second + 1));
    const a = this.tour.slice(from, from + first);
    const b = this.tour.slice(from + first, from + first + second);
    const before = this.at(from - 1);
    const after = this.at(from + first + second);
    const removed =
      this.c(before, this.at(from)) +
      this.c(this.at(from + first - 1), this.at(from + first)) +
      this.c(this.at(from + first + second - 1), after);
    this.changed(from, from + first + second - 1);
    this.tour.set(b, from);
    this.tour.set(a, from + second);
    for (let i = from; i < from + first + second; i++) this.position[this.at(i)] = i;
    const added =
      this.c(before, this.at(from)) +
      this.c(this.at(from + second - 1), this.at(from + second)) +
      this.c(this.at(from + first + second - 1), after);
    this.cost += added - removed;
    for (const index of [from - 1, from, from + second - 1, from + second, from + first + second - 1]) {
      this.activate(this.at(index));
    }
    this.activate(after);
  }
}
