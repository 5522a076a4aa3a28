import { describe, expect, it } from 'vitest';
import { inRouteOrder, keyRuns, orderFields, stopsInOrder } from '../../functions/data/waypoint-order';
import { planRevision, type StoredWaypoint, storedWaypointsOf } from '../../functions/domain/route-diff';
import type { ImportedRoute } from '../../functions/models/import-model';
import { ApiError } from '../../functions/shared/errors';

/** A route body whose waypoints have these ids, in this order (no invoices). */
const body = (ids: string[]): ImportedRoute => ({
  id: 'R',
  start_time: Date.UTC(2026, 10, 23, 8),
  activate_after_successful_import: false,
  waypoints: ids.map((id) => ({
    id,
    location: { latitude: 52, longitude: 13 },
    service_time_minutes: 0,
    time_windows: [],
    invoices: [],
  })),
});

/** The route's stored waypoints for `ids` in visiting order, with the sequences given (imported order by default). */
function stored(ids: string[], sequences = ids.map((_, index) => index)): StoredWaypoint[] {
  return storedWaypointsOf(body(ids), (position) => sequences[position] as number);
}

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.code, message: error.message };
    throw error;
  }
  return undefined;
};

describe('the visiting order apart from the sequences (functions/data/waypoint-order.ts)', () => {
  const reordered = { waypointIds: ['c', 'a', 'b'], waypointSequences: [2, 0, 1] };

  it('reads the header: stops in visiting order with their sequences', () => {
    expect(stopsInOrder(reordered)).toEqual([
      { id: 'c', sequence: 2 },
      { id: 'a', sequence: 0 },
      { id: 'b', sequence: 1 },
    ]);
    expect(stopsInOrder({ waypointIds: ['a', 'b'] })).toEqual([
      { id: 'a', sequence: 0 },
      { id: 'b', sequence: 1 },
    ]);
  });

  it('stores no sequences while they are the imported order, and every one once they are not', () => {
    expect(
      orderFields([
        { id: 'a', sequence: 0 },
        { id: 'b', sequence: 1 },
      ]),
    ).toEqual({
      waypointIds: ['a', 'b'],
      waypointSequences: undefined,
    });
    expect(orderFields(stopsInOrder(reordered))).toEqual(reordered);
  });

  it('sorts rows read in key order into the visiting order, leaving out rows the header does not list', () => {
    const rows = [0, 1, 2, 7].map((sequence) => ({ sequence }));
    expect(inRouteOrder(reordered, rows).map((row) => row.sequence)).toEqual([2, 0, 1]);
  });

  it('cuts a page into runs of keys with no other waypoint between them', () => {
    const route = { waypointIds: ['a', 'b', 'c', 'd', 'e', 'f'], waypointSequences: [0, 1, 3, 4, 8, 9] };
    // 1 and 3 are adjacent (2 was cancelled), 4 and 8 too; 0 and 3 are not (1 is between).
    expect(keyRuns(route, [3, 1, 9])).toEqual([
      { first: 1, last: 3 },
      { first: 9, last: 9 },
    ]);
    expect(keyRuns(route, [0, 1, 3, 4, 8, 9])).toEqual([{ first: 0, last: 9 }]);
    expect(keyRuns(route, [8, 0])).toEqual([
      { first: 0, last: 0 },
      { first: 8, last: 8 },
    ]);
    expect(keyRuns(route, [])).toEqual([]);
  });
});

describe('planRevision: the order a revision may give the waypoints', () => {
  const current = stored(['a', 'b', 'c', 'd']);
  const none = new Set<number>();

  it('reorders waypoints not yet visited: they keep their sequences, and the order changed', () => {
    const plan = planRevision(current, body(['a', 'd', 'b', 'c']), none, none, 4);
    expect(plan.waypointIds).toEqual(['a', 'd', 'b', 'c']);
    expect(plan.waypointSequences).toEqual([0, 3, 1, 2]);
    expect(plan.orderChanged).toBe(true);
    expect(plan.rewritten).toEqual([]);
    expect(plan.changes.waypoints).toEqual({ added: [], removed: [], changed: [] });
  });

  it('inserts a new waypoint anywhere after the visited ones, under the next sequence', () => {
    const done = new Set([0]);
    const plan = planRevision(current, body(['a', 'new', 'b', 'c', 'd']), done, done, 4);
    expect(plan.waypointSequences).toEqual([0, 4, 1, 2, 3]);
    expect(plan.orderChanged).toBe(false);
    expect(plan.changes.waypoints.added).toEqual(['new']);
  });

  it('keeps a visited waypoint where it is among the waypoints kept (3100 naming where)', () => {
    const done = new Set([1]);
    const refused = codeOf(() => planRevision(current, body(['b', 'a', 'c', 'd']), done, done, 4));
    expect(refused?.code).toBe(3100);
    expect(refused?.message).toContain('route.waypoints.1.id');
    expect(refused?.message).toContain("'b'");
    // Removing a waypoint before it moves it up with the others: its place among those kept is the same.
    const plan = planRevision(current, body(['b', 'd', 'c']), done, done, 4);
    expect(plan.waypointIds).toEqual(['b', 'd', 'c']);
  });

  it('lets a waypoint the driver will visit later (VISIT_LATER: visited, not done) move', () => {
    const visited = new Set([1]);
    const plan = planRevision(current, body(['a', 'c', 'd', 'b']), visited, none, 4);
    expect(plan.waypointIds).toEqual(['a', 'c', 'd', 'b']);
  });

  it('refuses a new waypoint before one whose visit is done (3101)', () => {
    const done = new Set([2]);
    const refused = codeOf(() => planRevision(current, body(['a', 'new', 'b', 'c', 'd']), done, done, 4));
    expect(refused?.code).toBe(3101);
    expect(refused?.message).toContain('route.waypoints.1.id');
  });

  it('sees no order change in a revision that only removes or adds', () => {
    expect(planRevision(current, body(['a', 'c', 'd', 'e']), none, none, 4).orderChanged).toBe(false);
  });
});
