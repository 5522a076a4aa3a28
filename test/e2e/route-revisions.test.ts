import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import * as routes from '../../functions/api/routes/index';
import { db, tableName } from '../../functions/data/client';
import { routeKeys } from '../../functions/data/routes';
import { expectError, expectSuccess } from '../support/http';
import { type ImportedWaypoint, type Route, startAndVisit, useRoutesApi } from '../support/route-changes';
import { exampleRoute, importRoute } from '../support/routes';

/**
 * Changes of a route after its import: cancelling one waypoint. The errors every route endpoint shares (401,
 * 403, 3003, 1006) are in routes.test.ts.
 */

const rt = useRoutesApi('route-revisions');

const cancel = (routeId: string, waypointId: string, key = rt.accounts.acme.key) =>
  rt.fx.as(key, 'DELETE', `/dcs/dc-1/routes/${routeId}/waypoints/${waypointId}`);

async function invoiceIdsOf(routeId: string): Promise<string[]> {
  const response = await rt.asAcme('GET', `/dcs/dc-1/routes/${routeId}/invoices`);
  const { invoices } = expectSuccess(response, routes.getInvoiceStatus) as { invoices: { id: string }[] };
  return invoices.map((invoice) => invoice.id);
}

const idsOf = (waypoint: ImportedWaypoint) => ({
  invoices: waypoint.invoices.map((invoice) => invoice.id),
  items: waypoint.invoices.flatMap((invoice) => invoice.items.map((item) => item.id)),
});

describe('DELETE /dcs/{dc_id}/routes/{route_id}/waypoints/{waypoint_id}', () => {
  it('cancels a waypoint not yet visited: version bumped, gone from every read, the others keep their sequence, ROUTE_UPDATED', async () => {
    const imported = await rt.importBeforeMiddleGoes('cxl-1');
    const { body, path, before, waypointsBefore, middleTrackingPath: trackingPath } = imported;
    const [wp0, wp1, wp2] = imported.waypoints;
    expect((await rt.fx.request('GET', trackingPath)).status).toBe(200);

    const response = await cancel(body.id, wp1.id);
    const { route } = expectSuccess(response, routes.cancelWaypoint) as { route: Route };
    expect(route).toEqual({ ...before, version: before.version + 1, waypoint_ids: [wp0.id, wp2.id] });
    expect(await rt.readRoute('dc-1', body.id)).toEqual(route);

    const waypoints = await rt.readWaypoints('dc-1', body.id);
    expect(waypoints.map((waypoint) => [waypoint.id, waypoint.sequence])).toEqual([
      [wp0.id, 0],
      [wp2.id, 2],
    ]);
    expectError(await rt.asAcme('GET', `${path}/waypoints/${wp1.id}`), 404, 1003);
    expect(await invoiceIdsOf(body.id)).toEqual([...idsOf(wp0).invoices, ...idsOf(wp2).invoices]);
    expectError(await rt.fx.request('GET', trackingPath), 404, 7000);
    // The planned ETAs no longer go through the cancelled stop: the last one is reached earlier.
    const [etaBefore, etaAfter] = [waypointsBefore[2]?.eta, waypoints[1]?.eta] as [number, number];
    expect(etaAfter).toBeLessThan(etaBefore);
    expect(waypoints[0]?.eta).toBe(waypointsBefore[0]?.eta);

    expect(await rt.routeUpdatedEvents(body.id)).toEqual([
      {
        version: route.version,
        changes: {
          waypoints: { added: [], removed: [wp1.id], changed: [] },
          invoices: { added: [], removed: idsOf(wp1).invoices, changed: [] },
          items: { added: [], removed: idsOf(wp1).items, changed: [] },
        },
        order_changed: false,
      },
    ]);
  });

  it('frees the ids of the waypoint, its invoices and items: another route may import them', async () => {
    const { body } = await rt.importForAppDriver('cxl-ids', 2);
    const cancelled = body.waypoints[1] as ImportedWaypoint;
    const other = { ...exampleRoute('cxl-ids-other', { waypoints: 1 }), waypoints: [cancelled] };
    const taken = await rt.asAcme('POST', '/dcs/dc-1/invoiced-routes', { route: other });
    expectError(taken, 400, 3006);

    expectSuccess(await cancel(body.id, cancelled.id), routes.cancelWaypoint);
    await importRoute(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', other);
    expect((await rt.readWaypoints('dc-1', other.id)).map((waypoint) => waypoint.id)).toEqual([cancelled.id]);
  });

  it('cancels a waypoint with more invoices and items than one transaction holds, and frees their ids', async () => {
    const driverId = 'cxl-big-driver';
    await rt.createAppDriver(driverId);
    const body = exampleRoute('cxl-big', {
      waypoints: 2,
      invoicesPerWaypoint: 5,
      itemsPerInvoice: 10,
      driverId,
    });
    await importRoute(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', body);
    const [wp0, wp1] = body.waypoints as [ImportedWaypoint, ImportedWaypoint];
    expect(idsOf(wp1).items).toHaveLength(50);

    const { route } = expectSuccess(await cancel(body.id, wp1.id), routes.cancelWaypoint) as { route: Route };
    expect(route.waypoint_ids).toEqual([wp0.id]);
    expect(await invoiceIdsOf(body.id)).toEqual(idsOf(wp0).invoices);
    const other = { ...exampleRoute('cxl-big-other', { waypoints: 1 }), waypoints: [wp1] };
    await importRoute(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', other);
    expect(await invoiceIdsOf(other.id)).toEqual(idsOf(wp1).invoices);
  });

  it('shows the driver app the route without the cancelled waypoint', async () => {
    const { body, asDriver } = await rt.importForAppDriver('cxl-app', 3);
    const [wp0, wp1, wp2] = body.waypoints as [ImportedWaypoint, ImportedWaypoint, ImportedWaypoint];
    expectSuccess(await cancel(body.id, wp1.id), routes.cancelWaypoint);
    const { routes: shown } = expectSuccess(
      await asDriver('GET', '/driver/routes'),
      driverApp.listDriverRoutes,
    ) as {
      routes: { id: string; waypoints: { id: string; invoices: { id: string }[] }[] }[];
    };
    expect(shown.map((route) => route.id)).toEqual([body.id]);
    expect(shown[0]?.waypoints.map((waypoint) => waypoint.id)).toEqual([wp0.id, wp2.id]);
    expect(shown[0]?.waypoints.flatMap((waypoint) => waypoint.invoices.map((invoice) => invoice.id))).toEqual(
      [...idsOf(wp0).invoices, ...idsOf(wp2).invoices],
    );
  });

  it('answers 3100 for a visited waypoint of a started route and cancels one not yet visited; the driver cannot visit it then', async () => {
    const { body, asDriver } = await rt.importForAppDriver('cxl-started', 3);
    const [wp0, wp1, wp2] = body.waypoints as [ImportedWaypoint, ImportedWaypoint, ImportedWaypoint];
    const startedAt = Date.now() - 60_000;
    // Any attempt makes a waypoint visited, one to come back to later too.
    await startAndVisit(
      asDriver,
      body.id,
      wp0.id,
      { id: 'cxl-started-visit-0', status: 'VISIT_LATER', timestamp: startedAt + 1_000 },
      startedAt,
    );
    const before = await rt.readRoute('dc-1', body.id);

    const refused = expectError(await cancel(body.id, wp0.id), 400, 3100);
    expect(refused).toContain('waypoint_id');
    expect(refused).toContain(wp0.id);
    expect(await rt.readRoute('dc-1', body.id)).toEqual(before);

    const { route } = expectSuccess(await cancel(body.id, wp1.id), routes.cancelWaypoint) as { route: Route };
    expect(route).toMatchObject({ version: before.version + 1, waypoint_ids: [wp0.id, wp2.id] });
    expect(route.started_timestamp).toBe(startedAt);
    const waypoints = await rt.readWaypoints('dc-1', body.id);
    expect(waypoints.map((waypoint) => [waypoint.id, waypoint.eta === null])).toEqual([
      [wp0.id, false],
      [wp2.id, false],
    ]);
    const late = await asDriver('POST', `/driver/routes/${body.id}/waypoints/${wp1.id}/attempts`, {
      id: 'cxl-started-visit-1',
      timestamp: Date.now(),
      status: 'SUCCESSFUL',
    });
    expectError(late, 400, 3013);
  });

  it('answers 3100 for a visit its read of the attempts missed (recorded while it was deciding)', async () => {
    const { body, asDriver } = await rt.importForAppDriver('cxl-race', 2);
    const wp0 = body.waypoints[0] as ImportedWaypoint;
    await startAndVisit(asDriver, body.id, wp0.id, { id: 'cxl-race-visit-0', status: 'SUCCESSFUL' });
    // The attempt's row taken away through the data layer: only the waypoint's visited mark, written in the
    // attempt's transaction, is left to show the visit, as when the attempt commits after the cancellation read.
    await db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: routeKeys.row(rt.accounts.acme.accountId, body.id, `ATTEMPT#00000#cxl-race-visit-0`),
      }),
    );
    const before = await rt.readRoute('dc-1', body.id);
    expectError(await cancel(body.id, wp0.id), 400, 3100);
    expect(await rt.readRoute('dc-1', body.id)).toEqual(before);
  });

  it('answers 3012 for a finished route and leaves it as it is', async () => {
    const { id, path } = await rt.seedRoute('cxl-finished', { finished: true });
    const before = await rt.readRoute('dc-1', id);
    expectError(await rt.asAcme('DELETE', `${path}/waypoints/${id}-wp-0`), 400, 3012);
    expect(await rt.readRoute('dc-1', id)).toEqual(before);
  });

  it('answers 1003 for a waypoint not on the route, and for one already cancelled', async () => {
    const { body } = await rt.importForAppDriver('cxl-twice', 2);
    const wp1 = body.waypoints[1] as ImportedWaypoint;
    expect(expectError(await cancel(body.id, 'no-such-waypoint'), 404, 1003)).toContain('waypoint_id');
    expectSuccess(await cancel(body.id, wp1.id), routes.cancelWaypoint);
    const after = await rt.readRoute('dc-1', body.id);
    expectError(await cancel(body.id, wp1.id), 404, 1003);
    expect(await rt.readRoute('dc-1', body.id)).toEqual(after);
    expect(await rt.routeUpdatedEvents(body.id)).toHaveLength(1);
  });
});
