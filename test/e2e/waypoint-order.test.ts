import { describe, expect, it } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import * as routes from '../../functions/api/routes/index';
import { expectError, expectSuccess } from '../support/http';
import { type Route, useRoutesApi, type Waypoint } from '../support/route-changes';

/**
 * PUT .../waypoint-order: a new visiting order for a route's waypoints. The errors every route endpoint shares
 * (401, 403, 3003, 1006 for the route id) are in routes.test.ts.
 */

const rt = useRoutesApi('waypoint-order');

const reorder = (path: string, waypointIds: string[], headers?: Record<string, string>) =>
  rt.fx.request('PUT', `${path}/waypoint-order`, {
    key: rt.accounts.acme.key,
    body: { waypoint_ids: waypointIds },
    headers,
  });

const reordered = async (path: string, waypointIds: string[]): Promise<Route> =>
  (expectSuccess(await reorder(path, waypointIds), routes.reorderWaypoints) as { route: Route }).route;

async function waypointsOf(
  path: string,
  query = '',
): Promise<{ waypoints: Waypoint[]; next_token?: string }> {
  const response = await rt.asAcme('GET', `${path}/waypoints${query}`);
  return expectSuccess(response, routes.listWaypoints) as { waypoints: Waypoint[]; next_token?: string };
}

const noIds = { added: [], removed: [], changed: [] };

describe('PUT /dcs/{dc_id}/routes/{route_id}/waypoint-order', () => {
  it('gives the waypoints a new order: version bumped, every read in it, sequences kept, ETAs along it, ROUTE_UPDATED with order_changed', async () => {
    const { ids, path } = await rt.importForAppDriver('order-1', 4);
    const before = await rt.readRoute('dc-1', 'order-1');
    const order = [ids[2], ids[0], ids[3], ids[1]] as string[];

    const route = await reordered(path, order);
    expect(route.version).toBe(before.version + 1);
    expect(route.waypoint_ids).toEqual(order);
    expect((await rt.readRoute('dc-1', 'order-1')).waypoint_ids).toEqual(order);
    const { waypoints } = await waypointsOf(path);
    expect(waypoints.map((waypoint) => waypoint.id)).toEqual(order);
    expect(waypoints.map((waypoint) => waypoint.sequence)).toEqual([2, 0, 3, 1]);
    // Planned ETAs follow the new order: each later than the one before.
    const etas = waypoints.map((waypoint) => waypoint.eta as number);
    expect(etas).toEqual([...etas].sort((a, b) => a - b));
    expect(new Set(etas).size).toBe(etas.length);

    // Pages follow the order too, and a page's token continues after its last waypoint.
    const first = await waypointsOf(path, '?limit=3');
    expect(first.waypoints.map((waypoint) => waypoint.id)).toEqual(order.slice(0, 3));
    const second = await waypointsOf(path, `?limit=3&next_token=${first.next_token}`);
    expect(second.waypoints.map((waypoint) => waypoint.id)).toEqual(order.slice(3));
    expect(second.next_token).toBeUndefined();
    const one = expectSuccess(await rt.asAcme('GET', `${path}/waypoints/${ids[1]}`), routes.getWaypoint) as {
      waypoint: Waypoint;
    };
    expect(one.waypoint.eta).toBe(etas[3]);

    expect(await rt.routeUpdatedEvents('order-1')).toEqual([
      {
        version: route.version,
        changes: { waypoints: noIds, invoices: noIds, items: noIds },
        order_changed: true,
      },
    ]);
    // The same order again changes nothing.
    expect((await reordered(path, order)).version).toBe(route.version);
    expect(await rt.routeUpdatedEvents('order-1')).toHaveLength(1);
  });

  it('reorders a started route around the visited waypoints, which keep their place (3100 naming the first moved); the driver app reads the new order', async () => {
    const { ids, path, asDriver } = await rt.importForAppDriver('order-started', 4);
    const [wp0, wp1, wp2, wp3] = ids as [string, string, string, string];
    expect(
      (await asDriver('POST', '/driver/routes/order-started/start', { timestamp: Date.now() - 60_000 }))
        .status,
    ).toBe(200);
    for (const [waypointId, status] of [
      [wp0, 'SUCCESSFUL'],
      [wp1, 'VISIT_LATER'],
    ]) {
      const visit = await asDriver('POST', `/driver/routes/order-started/waypoints/${waypointId}/attempts`, {
        id: `visit-${waypointId}`,
        timestamp: Date.now() - 1_000,
        status,
      });
      expect(visit.status, visit.text).toBe(200);
    }
    const before = await rt.readRoute('dc-1', 'order-started');
    const moved = expectError(await reorder(path, [wp1, wp0, wp2, wp3]), 400, 3100);
    expect(moved).toContain('waypoint_ids.0');
    expect(moved).toContain(wp0);
    expect((await rt.readRoute('dc-1', 'order-started')).version).toBe(before.version);

    // A waypoint to visit later (VISIT_LATER) moves like any waypoint still to visit.
    const order = [wp0, wp3, wp2, wp1];
    expect((await reordered(path, order)).waypoint_ids).toEqual(order);
    const app = expectSuccess(await asDriver('GET', '/driver/routes'), driverApp.listDriverRoutes) as {
      routes: { id: string; waypoints: { id: string; eta: number | null }[] }[];
    };
    const shown = app.routes.find((route) => route.id === 'order-started');
    expect(shown?.waypoints.map((waypoint) => waypoint.id)).toEqual(order);
    const etas = shown?.waypoints.slice(1).map((waypoint) => waypoint.eta as number) ?? [];
    expect(etas).toEqual([...etas].sort((a, b) => a - b));
  });

  it('refuses a list that misses, repeats or adds a waypoint, naming it, and changes nothing', async () => {
    const { ids, path } = await rt.importForAppDriver('order-bad', 3);
    const [wp0, wp1, wp2] = ids as [string, string, string];
    const before = await rt.readRoute('dc-1', 'order-bad');
    expect(expectError(await reorder(path, [wp0, wp1]), 400, 1006)).toContain(`'${wp2}'`);
    expect(expectError(await reorder(path, [wp0, wp1, wp1, wp2]), 400, 1006)).toContain('waypoint_ids.2');
    const unknown = expectError(await reorder(path, [wp0, wp1, wp2, 'order-1-wp-0']), 400, 3013);
    expect(unknown).toContain('waypoint_ids.3');
    expect(expectError(await reorder(path, []), 400, 1006)).toContain('waypoint_ids');
    expect(expectError(await reorder(path, [wp0, ' padded', wp2]), 400, 1006)).toContain('waypoint_ids.1');
    expect(await rt.readRoute('dc-1', 'order-bad')).toEqual(before);
  });

  it('answers 3012 for a finished route', async () => {
    const { ids, path } = await rt.importForAppDriver('order-finished', 2);
    expectSuccess(await rt.asAcme('PATCH', `${path}/finish`), routes.finishRoute);
    expectError(await reorder(path, [...ids].reverse()), 400, 3012);
  });

  it('keeps its first answer for an Idempotency-Key, and refuses the key for another order (1010)', async () => {
    const { ids, path } = await rt.importForAppDriver('order-key', 3);
    const header = { 'Idempotency-Key': '"order-key-1"' };
    const first = await reorder(path, [...ids].reverse(), header);
    const route = (expectSuccess(first, routes.reorderWaypoints) as { route: Route }).route;
    const again = await reorder(path, [...ids].reverse(), header);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await rt.readRoute('dc-1', 'order-key')).version).toBe(route.version);
    expectError(await reorder(path, ids, header), 422, 1010);
  });
});
