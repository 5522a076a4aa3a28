import { describe, expect, it } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import * as routes from '../../functions/api/routes/index';
import { getTrackingPage } from '../../functions/api/tracking/index';
import { ERROR_CODES } from '../../functions/shared/error-codes';
import { call, expectError, expectSuccess, readAllPages } from '../support/http';
import { type ImportedWaypoint, startAndVisit, useRoutesApi } from '../support/route-changes';
import { exampleRoute, importRoute, waitForImport } from '../support/routes';

/**
 * PUT .../revision: the new version of an imported route, applied all or nothing by the import worker. The
 * errors every route endpoint shares (401, 403, 3003, 1006) are in routes.test.ts.
 */

const rt = useRoutesApi('route-revision-put');

type Changes = Record<
  'waypoints' | 'invoices' | 'items',
  { added: string[]; removed: string[]; changed: string[] }
>;

/** PUTs the revision (202) and waits until it ended; returns import-status's last answer. */
async function revise(routeId: string, route: unknown) {
  const accepted = await rt.asAcme('PUT', `/dcs/dc-1/routes/${routeId}/revision`, { route });
  const { txid } = expectSuccess(accepted, routes.reviseRoute, 202) as { txid: string };
  return { txid, finished: await waitForImport(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', txid) };
}

/** A revision that must succeed: its changes. */
async function revised(routeId: string, route: unknown): Promise<{ txid: string; changes: Changes }> {
  const { txid, finished } = await revise(routeId, route);
  const data = expectSuccess(finished, routes.getImportStatus) as { changes: Changes };
  return { txid, changes: data.changes };
}

async function invoicesOf(routeId: string) {
  const response = await rt.asAcme('GET', `/dcs/dc-1/routes/${routeId}/invoices`);
  return (
    expectSuccess(response, routes.getInvoiceStatus) as {
      invoices: { id: string; items: { id: string; quantity: number }[] }[];
    }
  ).invoices;
}

const none = { added: [], removed: [], changed: [] };
const itemIdsOf = (waypoint: ImportedWaypoint) =>
  waypoint.invoices.flatMap((invoice) => invoice.items.map((item) => item.id));

/** The same waypoint with the first item of its first invoice in another quantity. */
function withQuantity(waypoint: ImportedWaypoint, quantity: number): ImportedWaypoint {
  const [first, ...rest] = waypoint.invoices;
  if (!first) throw new Error('no invoice');
  const [item, ...items] = first.items;
  if (!item) throw new Error('no item');
  return { ...waypoint, invoices: [{ ...first, items: [{ ...item, quantity }, ...items] }, ...rest] };
}

/** Everything a client reads of a route: to show that a refused revision left it as it was. */
async function snapshotOf(routeId: string) {
  return {
    route: await rt.readRoute('dc-1', routeId),
    waypoints: await rt.readWaypoints('dc-1', routeId),
    invoices: await invoicesOf(routeId),
  };
}

describe('PUT /dcs/{dc_id}/routes/{route_id}/revision', () => {
  it('adds, removes and changes waypoints, invoices and items and the route’s fields; import-status answers the changes; ROUTE_UPDATED', async () => {
    const imported = await rt.importBeforeMiddleGoes('rev-1');
    const { body, asDriver, before, middleTrackingPath: removedTracking } = imported;
    const [wp0, wp1, wp2] = imported.waypoints;
    const added = { ...(exampleRoute('rev-1-new', { waypoints: 1 }).waypoints[0] as ImportedWaypoint) };
    const moved = { ...wp2, address: '9 Other St' };
    const revision = {
      ...body,
      name: 'Route rev-1, revised',
      waypoints: [withQuantity(wp0, 7), moved, added],
    };

    const { txid, changes } = await revised(body.id, revision);
    expect(changes).toEqual({
      waypoints: { added: [added.id], removed: [wp1.id], changed: [wp2.id] },
      invoices: {
        added: added.invoices.map((invoice) => invoice.id),
        removed: wp1.invoices.map((invoice) => invoice.id),
        changed: [],
      },
      items: { added: itemIdsOf(added), removed: itemIdsOf(wp1), changed: [itemIdsOf(wp0)[0]] },
    });

    const route = await rt.readRoute('dc-1', body.id);
    expect(route.name).toBe('Route rev-1, revised');
    expect(route.waypoint_ids).toEqual([wp0.id, wp2.id, added.id]);
    expect(route.version).toBeGreaterThan(before.version);
    const waypoints = await rt.readWaypoints('dc-1', body.id);
    // Kept waypoints keep their sequences; an added one takes the next after every sequence used.
    expect(waypoints.map((waypoint) => [waypoint.id, waypoint.sequence])).toEqual([
      [wp0.id, 0],
      [wp2.id, 2],
      [added.id, 3],
    ]);
    expect(waypoints[1]?.address).toBe('9 Other St');
    expect(waypoints.every((waypoint) => typeof waypoint.eta === 'number')).toBe(true);
    const invoices = await invoicesOf(body.id);
    expect(invoices.map((invoice) => invoice.id)).toEqual(
      [wp0, wp2, added].flatMap((waypoint) => waypoint.invoices.map((invoice) => invoice.id)),
    );
    expect(invoices[0]?.items[0]?.quantity).toBe(7);
    // The removed waypoint's tracking link is gone; the added one's works.
    expectError(await rt.fx.request('GET', removedTracking), 404, 7000);
    const addedTracking = String(waypoints[2]?.tracking_url).slice(rt.fx.api.url.length);
    expect((await rt.fx.request('GET', addedTracking)).status).toBe(200);

    const { routes: shown } = expectSuccess(
      await asDriver('GET', '/driver/routes'),
      driverApp.listDriverRoutes,
    ) as { routes: { id: string; waypoints: { id: string }[] }[] };
    expect(shown[0]?.waypoints.map((waypoint) => waypoint.id)).toEqual([wp0.id, wp2.id, added.id]);

    expect(await rt.routeUpdatedEvents(body.id)).toEqual([
      { version: route.version, changes, order_changed: false, txid },
    ]);
  });

  it('changes nothing when the same revision comes again: empty changes, no event, the version kept', async () => {
    const { body } = await rt.importForAppDriver('rev-twice', 2);
    const revision = { ...body, waypoints: [withQuantity(body.waypoints[0] as ImportedWaypoint, 3)] };
    await revised(body.id, revision);
    const after = await snapshotOf(body.id);

    const again = await revised(body.id, revision);
    expect(again.changes).toEqual({ waypoints: none, invoices: none, items: none });
    expect(await snapshotOf(body.id)).toEqual(after);
    expect(await rt.routeUpdatedEvents(body.id)).toHaveLength(1);
  });

  it('gives a waypoint removed and added again a tracking link of its own: the earlier customer’s opens nothing', async () => {
    const { body } = await rt.importForAppDriver('rev-relink', 3);
    const [wp0, wp1, wp2] = body.waypoints as [ImportedWaypoint, ImportedWaypoint, ImportedWaypoint];
    const linksOf = async () =>
      new Map(
        (await rt.readWaypoints('dc-1', body.id)).map((waypoint) => [
          waypoint.id,
          waypoint.tracking_url as string,
        ]),
      );
    const before = await linksOf();
    await revised(body.id, { ...body, waypoints: [wp0, wp2] });
    await revised(body.id, { ...body, waypoints: [wp0, wp2, { ...wp1, name: 'The next customer' }] });
    const after = await linksOf();

    const base = rt.fx.api.url;
    const track = (url: string | undefined) => call(base, 'GET', (url as string).slice(base.length));
    expect(after.get(wp1.id)).not.toBe(before.get(wp1.id));
    expectError(await track(before.get(wp1.id)), 404, ERROR_CODES.TRACKING_LINK_NOT_FOUND.code);
    expect(expectSuccess(await track(after.get(wp1.id)), getTrackingPage)).toMatchObject({
      stop_name: 'The next customer',
    });
    // The stops that stayed keep the links their customers were sent.
    expect([after.get(wp0.id), after.get(wp2.id)]).toEqual([before.get(wp0.id), before.get(wp2.id)]);
  });

  it('frees the removed ids: another route may import them', async () => {
    const { body } = await rt.importForAppDriver('rev-free', 2);
    const removed = body.waypoints[1] as ImportedWaypoint;
    await revised(body.id, { ...body, waypoints: [body.waypoints[0]] });
    const other = { ...exampleRoute('rev-free-other', { waypoints: 1 }), waypoints: [removed] };
    await importRoute(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', other);
    expect((await rt.readWaypoints('dc-1', other.id)).map((waypoint) => waypoint.id)).toEqual([removed.id]);
  });

  it('fails with 3100 naming the waypoint when a visited one would change, and leaves the route as it was', async () => {
    const { body, asDriver } = await rt.importForAppDriver('rev-visited', 2);
    const [wp0, wp1] = body.waypoints as [ImportedWaypoint, ImportedWaypoint];
    await startAndVisit(asDriver, body.id, wp0.id, { id: 'rev-visited-0', status: 'VISIT_LATER' });
    const before = await snapshotOf(body.id);

    for (const waypoints of [[withQuantity(wp0, 9), wp1], [wp1]]) {
      const { finished } = await revise(body.id, { ...body, waypoints });
      expect(expectError(finished, 400, 3100)).toContain(wp0.id);
      expect(await snapshotOf(body.id)).toEqual(before);
    }
    // Its unvisited neighbour may still change, on a started route too.
    const { changes } = await revised(body.id, { ...body, waypoints: [wp0, withQuantity(wp1, 4)] });
    expect(changes.items.changed).toEqual([itemIdsOf(wp1)[0]]);
  });

  it('fails with 3006 when an added waypoint id is another route’s, frees the ids it had claimed, and leaves the route as it was', async () => {
    const { body } = await rt.importForAppDriver('rev-taken', 1);
    const { body: other } = await rt.importForAppDriver('rev-taken-other', 1);
    const fresh = exampleRoute('rev-taken-fresh', { waypoints: 1 }).waypoints[0] as ImportedWaypoint;
    const before = await snapshotOf(body.id);
    const { finished } = await revise(body.id, {
      ...body,
      waypoints: [...body.waypoints, fresh, other.waypoints[0]],
    });
    expect(expectError(finished, 400, 3006)).toContain(other.waypoints[0]?.id);
    expect(await snapshotOf(body.id)).toEqual(before);
    expect(await rt.routeUpdatedEvents(body.id)).toEqual([]);
    // The fresh waypoint's ids were claimed for the revision, then freed.
    const third = { ...exampleRoute('rev-taken-third', { waypoints: 1 }), waypoints: [fresh] };
    await importRoute(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', third);
  });

  it('reorders waypoints still to visit and inserts new ones after the visited ones; moving a visited one is 3100, a new one before it 3101', async () => {
    const { body, asDriver } = await rt.importForAppDriver('rev-order', 3);
    const [wp0, wp1, wp2] = body.waypoints as [ImportedWaypoint, ImportedWaypoint, ImportedWaypoint];
    const fresh = exampleRoute('rev-order-new', { waypoints: 1 }).waypoints[0] as ImportedWaypoint;
    await startAndVisit(asDriver, body.id, wp0.id, { id: 'rev-order-0', status: 'SUCCESSFUL' });
    const before = await snapshotOf(body.id);
    const moved = await revise(body.id, { ...body, waypoints: [wp1, wp0, wp2] });
    expect(expectError(moved.finished, 400, 3100)).toContain('route.waypoints.0.id');
    const inserted = await revise(body.id, { ...body, waypoints: [fresh, wp0, wp2, wp1] });
    expect(expectError(inserted.finished, 400, 3101)).toContain(fresh.id);
    expect(await snapshotOf(body.id)).toEqual(before);

    const { changes } = await revised(body.id, { ...body, waypoints: [wp0, wp2, fresh, wp1] });
    expect(changes.waypoints).toEqual({ added: [fresh.id], removed: [], changed: [] });
    const order = [wp0.id, wp2.id, fresh.id, wp1.id];
    expect((await rt.readRoute('dc-1', body.id)).waypoint_ids).toEqual(order);
    const after = await rt.readWaypoints('dc-1', body.id);
    expect(after.map((waypoint) => waypoint.id)).toEqual(order);
    // Each keeps its sequence: the new one takes the next after every one used.
    expect(after.map((waypoint) => waypoint.sequence)).toEqual([0, 2, 3, 1]);
    const events = await rt.routeUpdatedEvents(body.id);
    expect(events.at(-1)).toMatchObject({ order_changed: true });
    // The driver app's next read shows the new order.
    const app = expectSuccess(await asDriver('GET', '/driver/routes'), driverApp.listDriverRoutes) as {
      routes: { id: string; waypoints: { id: string }[] }[];
    };
    const mine = app.routes.find((entry) => entry.id === body.id);
    expect(mine?.waypoints.map((waypoint) => waypoint.id)).toEqual(order);
  });

  it('changes the driver of a route not started, refuses it on a started route (3011), and a driver outside the DC (3010)', async () => {
    const { body } = await rt.importForAppDriver('rev-driver', 1);
    const newDriver = 'rev-driver-next';
    const next = await rt.createAppDriver(newDriver);
    await revised(body.id, { ...body, driver_id: newDriver });
    expect((await rt.readRoute('dc-1', body.id)).assigned_driver_id).toBe(newDriver);
    expect(await rt.activeRouteIds('dc-1', newDriver)).toEqual([body.id]);
    expect(await rt.activeRouteIds('dc-1', body.driver_id as string)).toEqual([]);

    expectError(
      await rt.asAcme('PUT', `/dcs/dc-1/routes/${body.id}/revision`, {
        route: { ...body, driver_id: 'nobody-here' },
      }),
      400,
      3010,
    );
    const asNext = await next.asDriver('POST', `/driver/routes/${body.id}/start`, {
      timestamp: Date.now() - 1_000,
    });
    expect(asNext.status, asNext.text).toBe(200);
    const { finished } = await revise(body.id, body);
    expect(expectError(finished, 400, 3011)).toContain('route.driver_id');
  });

  it('refuses a finished route (3012) and a body of another route (1006 naming route.id)', async () => {
    const { id } = await rt.seedRoute('rev-finished', { finished: true });
    const body = exampleRoute(id, { waypoints: 1 });
    expectError(await rt.asAcme('PUT', `/dcs/dc-1/routes/${id}/revision`, { route: body }), 400, 3012);
    const { body: open } = await rt.importForAppDriver('rev-other-id', 1);
    const message = expectError(
      await rt.asAcme('PUT', `/dcs/dc-1/routes/${open.id}/revision`, { route: { ...open, id: 'rev-else' } }),
      400,
      1006,
    );
    expect(message).toContain('route.id');
  });
});

describe('a revision of a 2,000-waypoint route', () => {
  /** Quiet, the import and the revision take under a minute each; each may take five times that. */
  const PHASE_MS = 300_000;

  it('removes 100 stops, adds 100 and changes 100 items as an import of that size works: paged reads, every id once', async () => {
    const route = exampleRoute('rev-big', { waypoints: 2000, itemsPerInvoice: 2, leanItems: true });
    const accepted = await rt.asAcme('POST', '/dcs/dc-1/invoiced-routes', { route });
    const { txid: importTxid } = expectSuccess(accepted, routes.importRoute, 202) as { txid: string };
    const imported = await waitForImport(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', importTxid, PHASE_MS);
    expect(expectSuccess(imported, routes.getImportStatus)).toMatchObject({ status: 'SUCCEEDED' });

    const kept = route.waypoints
      .slice(0, 1900)
      .map((waypoint, i) => (i < 100 ? withQuantity(waypoint, 7) : waypoint));
    const added = exampleRoute('rev-big-new', {
      waypoints: 100,
      itemsPerInvoice: 2,
      leanItems: true,
    }).waypoints;
    const revision = { ...route, waypoints: [...kept, ...added] };
    const put = await rt.asAcme('PUT', '/dcs/dc-1/routes/rev-big/revision', { route: revision });
    const { txid } = expectSuccess(put, routes.reviseRoute, 202) as { txid: string };
    const finished = await waitForImport(rt.fx.api.url, rt.accounts.acme.key, 'dc-1', txid, PHASE_MS);
    const { changes } = expectSuccess(finished, routes.getImportStatus) as { changes: Changes };

    const removed = route.waypoints.slice(1900);
    expect(changes.waypoints.added).toEqual(added.map((waypoint) => waypoint.id));
    expect(changes.waypoints.removed).toEqual(removed.map((waypoint) => waypoint.id));
    expect(changes.items.added).toEqual(added.flatMap(itemIdsOf));
    expect(changes.items.removed).toEqual(removed.flatMap(itemIdsOf));
    expect(changes.items.changed).toEqual(kept.slice(0, 100).map((waypoint) => itemIdsOf(waypoint)[0]));

    // Read back page by page: the stops in the revision's order, each item once, the changed quantities.
    const asAcme = (pathAndQuery: string) => rt.asAcme('GET', pathAndQuery);
    const waypointPages = await readAllPages(
      asAcme,
      '/dcs/dc-1/routes/rev-big/waypoints',
      routes.listWaypoints,
    );
    expect(waypointPages.length).toBeGreaterThan(1);
    const waypoints = waypointPages.flatMap((page) => page.waypoints as { id: string }[]);
    expect(waypoints.map((waypoint) => waypoint.id)).toEqual(
      revision.waypoints.map((waypoint) => waypoint.id),
    );
    const invoicePages = await readAllPages(
      asAcme,
      '/dcs/dc-1/routes/rev-big/invoices',
      routes.getInvoiceStatus,
    );
    const items = invoicePages.flatMap((page) =>
      (page.invoices as { items: { id: string; quantity: number }[] }[]).flatMap((invoice) => invoice.items),
    );
    expect(new Set(items.map((item) => item.id)).size).toBe(items.length);
    expect(items.map((item) => item.id).sort()).toEqual(revision.waypoints.flatMap(itemIdsOf).sort());
    const firstItem = items.find(
      (item) => item.id === itemIdsOf(revision.waypoints[0] as ImportedWaypoint)[0],
    );
    expect(firstItem?.quantity).toBe(7);
  }, 900_000);
});
