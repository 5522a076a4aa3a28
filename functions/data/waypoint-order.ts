import { PAGE_BYTE_BUDGET } from '../shared/limits';
import { getAll, type Item, queryItems } from './client';
import { listInvoiceRowsOfWaypoints } from './invoice-rows';
import { decodeNextToken, encodeNextToken, type Page, type PageRequest } from './pagination';
import { type InvoiceRow, listWaypointRows, type WaypointRow, waypointRowFromItem } from './route-rows';
import { ROUTE_ROW_PREFIX, type RouteHeader, routeKeys, waypointSequencesOf } from './routes';

/**
 * A route's visiting order, apart from its stops' identity (docs/architecture.md, "A route's order"): a
 * waypoint's rows, attempts, proofs and tracking link are keyed by its sequence, which it keeps for life; the
 * order it is visited in is the header's list (`waypointIds`, with each one's sequence beside it). A reorder
 * rewrites that list and nothing else, and every read of the waypoints takes them in its order: all of them
 * (one query of the rows, sorted here), or a page of it (the page's rows read by key).
 */

/** A stop of the route's order: its waypoint id and its sequence (the key of its rows). */
export interface OrderedStop {
  id: string;
  sequence: number;
}

/** The route's stops in visiting order. */
export function stopsInOrder(route: Pick<RouteHeader, 'waypointIds' | 'waypointSequences'>): OrderedStop[] {
  const sequences = waypointSequencesOf(route);
  return route.waypointIds.map((id, position) => ({ id, sequence: sequences[position] as number }));
}

/**
 * The header's order fields for `stops` in visiting order: `waypointSequences` is left out while it would be
 * 0, 1, 2 ... (routes as imported, never reordered or revised).
 */
export function orderFields(
  stops: readonly OrderedStop[],
): Pick<RouteHeader, 'waypointIds' | 'waypointSequences'> {
  const waypointIds = stops.map((stop) => stop.id);
  const identity = stops.every((stop, position) => stop.sequence === position);
  return { waypointIds, waypointSequences: identity ? undefined : stops.map((stop) => stop.sequence) };
}

/**
 * `rows` (read in key order, or any) in the route's visiting order; a row the header does not list (a
 * revision's, written before its commit) is left out.
 */
export function inRouteOrder<T extends { sequence: number }>(
  route: Pick<RouteHeader, 'waypointIds' | 'waypointSequences'>,
  rows: readonly T[],
): T[] {
  const bySequence = new Map(rows.map((row) => [row.sequence, row]));
  return waypointSequencesOf(route).flatMap((sequence) => {
    const row = bySequence.get(sequence);
    return row ? [row] : [];
  });
}

/** Sequences `first`..`last` with no other sequence of the route between them in key order. */
export interface KeyRun {
  first: number;
  last: number;
}

/**
 * `wanted` (sequences of the route) cut into runs of sequences adjacent in the route's key order: each run's
 * rows are one range of keys with no other waypoint's between them. A route in its imported order gives one
 * run per page; a reordered one, more.
 */
export function keyRuns(
  route: Pick<RouteHeader, 'waypointIds' | 'waypointSequences'>,
  wanted: readonly number[],
) {
  const sorted = [...waypointSequencesOf(route)].sort((a, b) => a - b);
  const rank = new Map(sorted.map((sequence, index) => [sequence, index]));
  const ranks = wanted.flatMap((sequence) => {
    const at = rank.get(sequence);
    return at === undefined ? [] : [at];
  });
  ranks.sort((a, b) => a - b);
  const runs: KeyRun[] = [];
  let previous = Number.NaN;
  for (const at of ranks) {
    const sequence = sorted[at] as number;
    const run = runs.at(-1);
    if (run && at === previous + 1) run.last = sequence;
    else runs.push({ first: sequence, last: sequence });
    previous = at;
  }
  return runs;
}

/** Every waypoint row of the route, in visiting order (one query of them all, sorted by the header). */
export async function listRouteWaypoints(route: RouteHeader): Promise<WaypointRow[]> {
  const { items } = await listWaypointRows(route.accountId, route.routeId);
  return inRouteOrder(route, items);
}

/** Waypoint rows read at a time by a page: a page of rows that turn out large stops about at its byte budget. */
const ROWS_PER_READ = 200;

/**
 * The waypoint rows of these sequences, in the order given (a sequence without a row is left out): each run of
 * two or more (keyRuns) is one query of its key range, the lone ones are read by key, 100 a request.
 */
export async function getWaypointRows(
  route: Pick<RouteHeader, 'accountId' | 'routeId' | 'waypointIds' | 'waypointSequences'>,
  sequences: readonly number[],
): Promise<{ rows: WaypointRow[]; bytesRead: number }> {
  const { accountId, routeId } = route;
  const runs = keyRuns(route, sequences);
  const lone = runs.filter((run) => run.first === run.last);
  const ranged = runs.filter((run) => run.first !== run.last);
  const [byKey, ...byRange] = await Promise.all([
    lone.length > 0
      ? getAll(lone.map((run) => routeKeys.waypoint(accountId, routeId, run.first)))
      : Promise.resolve([] as Item[]),
    ...ranged.map(async (run) => {
      const { items } = await queryItems({
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': routeKeys.partition(accountId, routeId),
          ':from': routeKeys.waypoint(accountId, routeId, run.first).sk,
          ':to': routeKeys.waypoint(accountId, routeId, run.last).sk,
        },
        ConsistentRead: true,
      });
      return items;
    }),
  ]);
  const items = [...(byKey ?? []), ...byRange.flat()];
  const bySequence = new Map(items.map((item) => [waypointRowFromItem(item).sequence, item]));
  let bytesRead = 0;
  const rows = sequences.flatMap((sequence) => {
    const item = bySequence.get(sequence);
    if (!item) return [];
    bytesRead += Buffer.byteLength(JSON.stringify(item));
    return [waypointRowFromItem(item)];
  });
  return { rows, bytesRead };
}

/**
 * Where a page of the order starts: after the waypoint its token names (the last one of the page before), where
 * that waypoint is now; when it has left the route, at the first waypoint of a higher sequence (in a route never
 * reordered, exactly where it left off).
 */
function pageStart(route: RouteHeader, stops: readonly OrderedStop[], nextToken?: string): number {
  const partition = routeKeys.partition(route.accountId, route.routeId);
  const key = decodeNextToken(nextToken, partition, ROUTE_ROW_PREFIX.waypoint);
  if (!key) return 0;
  const sequence = Number(key.sk.slice(ROUTE_ROW_PREFIX.waypoint.length));
  const at = stops.findIndex((stop) => stop.sequence === sequence);
  if (at >= 0) return at + 1;
  const after = stops.findIndex((stop) => stop.sequence > sequence);
  return after >= 0 ? after : stops.length;
}

/**
 * The route's waypoint rows in visiting order: all of them, or one page (at most `limit`, fewer once the rows
 * read reach PAGE_BYTE_BUDGET) after the page its token ended. Its `next_token` is the key of its last
 * waypoint, as key-ordered pages had.
 */
export async function listWaypointRowsInOrder(
  route: RouteHeader,
  page?: PageRequest,
): Promise<Page<WaypointRow>> {
  const stops = stopsInOrder(route);
  const start = pageStart(route, stops, page?.nextToken);
  const end = page ? Math.min(stops.length, start + page.limit) : stops.length;
  const rows: WaypointRow[] = [];
  let bytesRead = 0;
  let next = start;
  while (next < end && (!page || bytesRead < PAGE_BYTE_BUDGET)) {
    const chunk = stops.slice(next, Math.min(end, next + ROWS_PER_READ));
    const read = await getWaypointRows(
      route,
      chunk.map((stop) => stop.sequence),
    );
    rows.push(...read.rows);
    bytesRead += read.bytesRead;
    next += chunk.length;
  }
  const last = rows.at(-1);
  const more = page !== undefined && next < stops.length && last !== undefined;
  return {
    items: rows,
    nextToken: more
      ? encodeNextToken(routeKeys.waypoint(route.accountId, route.routeId, last.sequence))
      : undefined,
  };
}

/**
 * The invoices of these waypoints (by sequence) with their items, each run's in key order (keyRuns): a page
 * of a reordered route reads each run of adjacent keys, never the rows of the waypoints between them.
 */
export async function listInvoiceRowsOfStops(
  route: RouteHeader,
  sequences: readonly number[],
): Promise<InvoiceRow[]> {
  const runs = keyRuns(route, sequences);
  const read = await Promise.all(runs.map((run) => listInvoiceRowsOfWaypoints(route, run.first, run.last)));
  return read.flat();
}

/** The smallest range of sequences that holds all of these (an attempts query's range), or none. */
export function sequenceSpan(sequences: readonly number[]): KeyRun | undefined {
  if (sequences.length === 0) return undefined;
  return { first: Math.min(...sequences), last: Math.max(...sequences) };
}
