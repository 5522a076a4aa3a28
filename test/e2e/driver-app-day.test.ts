import { beforeAll, describe, expect, it } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import * as drivers from '../../functions/api/drivers/index';
import { getRouteHeader } from '../../functions/data/routes';
import type { LatLng } from '../../functions/domain/etas';
import {
  at,
  attemptPath,
  attemptView,
  BASE,
  type DriverLocation,
  etasEventDetails,
  NINETY_DAYS_S,
  nth,
} from '../support/driver-app';
import {
  day,
  deliveryDay,
  driverId,
  FIRST_CASH,
  SECOND_CASH,
  token,
  tomorrow,
  warehouse,
  wp,
} from '../support/driver-app-day';
import { useTestApi } from '../support/fixtures';
import { expectError, expectSuccess } from '../support/http';

/*
 * A whole delivery day through the driver app, over the stages of test/support/driver-app-day.ts: each test
 * awaits the stage it checks, so it runs alone as well as with the others.
 */

const fx = useTestApi('driver-app-day');
const stages = deliveryDay(fx);

/**
 * Awaits a visit of the day's stages: its attempt answered as the driver sent it, the ETAs of the waypoints
 * left moved (a ROUTE_ETAS_CHANGED) or not as `etasMove` says, and every read matching the day's state.
 * The waypoints as read.
 */
async function expectVisit(visit: ReturnType<typeof stages.visit0>, etasMove: boolean) {
  const { body, attempt, moved } = await visit;
  expect(attempt).toEqual(attemptView(body, driverId));
  expect(moved).toBe(etasMove);
  return stages.expectReadsMatchState();
}

describe('a whole delivery day through the driver app', () => {
  // The first stage imports the routes (the import worker's cold start): made under the hook's timeout.
  beforeAll(async () => {
    await stages.imported();
  });

  it('shows the imported route with planned ETAs and an estimated completion', async () => {
    const { client, route } = await stages.imported();
    expect(route).toMatchObject({
      id: day.id,
      assigned_driver_id: driverId,
      start_time: BASE,
      version: 1,
      is_active: true,
      is_finalized: false,
      started_timestamp: null,
      finalized_timestamp: null,
    });
    const waypoints = await stages.expectReadsMatchState();
    // Planned from the start warehouse at start_time: nobody waits before the window opens at +1 h.
    expect(waypoints.map((waypoint) => waypoint.eta)).toEqual(stages.state.etas.etas);
    expect(nth(waypoints, 0).eta).toBe(at(60));
    await stages.expectEstimatedCompletion();
    expect(await client.readAccounting('dc-1', day.id)).toEqual([]);
    expect(await client.readActiveRouteIds('dc-1', driverId)).toEqual([day.id, tomorrow.id]);
    expect(await client.readLocation('dc-1', driverId)).toBeNull();
  });

  it('lists the driver’s active routes by start time, in full', async () => {
    const { client } = await stages.imported();
    const listed = await client.driverRoutes(token);
    expect(listed.map((route) => route.id)).toEqual([day.id, tomorrow.id]);
    await stages.expectDriverViewMatchesReads(nth(listed, 0));
    expect(nth(nth(nth(listed, 0).waypoints, 0).invoices, 0).items.map((entry) => entry.status)).toEqual([
      null,
      null,
    ]);
  });

  it('keeps the newest location when an older ping arrives later, and traces every ping', async () => {
    await stages.earlyPings();
    const { client } = await stages.imported();
    const latest = { timestamp: at(5), location: warehouse };
    expect(await client.readLocation('dc-1', driverId)).toEqual(latest);
    const bulk = await client.asAccount('GET', `/dcs/dc-1/drivers/${driverId}/driver_bulk_info`);
    expect(expectSuccess(bulk, drivers.getDriverBulkInfo)).toEqual({
      driver: { id: driverId, name: `Driver ${driverId}`, login_token: token },
      driver_location: latest,
    });
  });

  it('refuses to delete the driver while it has active routes (2001)', async () => {
    const { client } = await stages.imported();
    expectError(await client.asAccount('DELETE', `/dcs/dc-1/drivers/${driverId}`), 400, 2001);
    expect(await client.driverRoutes(token)).toHaveLength(2);
  });

  it('starts the route as the driver: started_timestamp, version 2, ROUTE_STARTED and moved ETAs', async () => {
    const { client, route: before } = await stages.imported();
    const { route, moved } = await stages.started();
    expect(route).toEqual({
      ...before,
      started_timestamp: at(70),
      version: 2,
      is_active: true,
      is_finalized: false,
    });
    expect(await client.readRoute('dc-1', day.id)).toEqual(route);
    expect(moved).toBe(true);
    await stages.expectReadsMatchState();
    await stages.expectEstimatedCompletion();
    expect(await client.readActiveRouteIds('dc-1', driverId)).toEqual([day.id, tomorrow.id]);
    const listed = await client.driverRoutes(token);
    expect(listed.map((entry) => [entry.id, entry.started_timestamp])).toEqual([
      [day.id, at(70)],
      [tomorrow.id, null],
    ]);
  });

  it('takes a ping that leaves the ETAs where they are without a ROUTE_ETAS_CHANGED', async () => {
    expect((await stages.pingAtStart()).moved).toBe(false);
    await stages.expectReadsMatchState();
  });

  it('records waypoint 0 SUCCESSFUL: every item delivered, ETAs of the rest move', async () => {
    await expectVisit(stages.visit0(), true);
    await stages.expectEstimatedCompletion();
  });

  it('answers a repeated attempt id with the first attempt and writes nothing', async () => {
    const { attempt: first } = await stages.visit0();
    const { client } = await stages.imported();
    const again = await client.driverAttempt(token, day.id, wp(0).id, {
      id: 'visit-0',
      timestamp: at(81),
      status: 'FAILED',
      reason: { code: 'CLOSED', message: 'shop closed' },
    });
    expect(again).toEqual(first);
    await stages.expectReadsMatchState();
    expect((await client.readRoute('dc-1', day.id)).version).toBe(2);
  });

  it('records waypoint 2 VISIT_LATER (skipping 1): listed items decided, the others still pending', async () => {
    // Waypoints 1 and 2 stay to visit, in sequence; both move by about 2 minutes: no ROUTE_ETAS_CHANGED.
    const waypoints = await expectVisit(stages.visit2Later(), false);
    const { client } = await stages.imported();
    expect(waypoints.map((waypoint) => waypoint.status)).toEqual(['SUCCESSFUL', 'PENDING', 'VISIT_LATER']);
    expect(nth(waypoints, 2).eta).toBeGreaterThan(nth(waypoints, 1).eta as number);
    const listed = await client.driverRoutes(token);
    expect(listed.map((route) => route.id)).toEqual([day.id, tomorrow.id]);
    await stages.expectDriverViewMatchesReads(listed[0]);
    await stages.expectEstimatedCompletion();
  });

  it('records the second visit of waypoint 2 SUCCESSFUL: still ESTIMATED while waypoint 1 is pending', async () => {
    const waypoints = await expectVisit(stages.visit2Again(), true);
    expect(nth(waypoints, 2).attempts.map((entry) => entry.id)).toEqual(['visit-2a', 'visit-2b']);
    await stages.expectEstimatedCompletion();
  });

  it('records waypoint 1 FAILED, one item for its own reason, the other delivered: completion ACTUAL', async () => {
    // Nothing is left to visit: no ETA to send.
    const waypoints = await expectVisit(stages.visit1(), false);
    const { client } = await stages.imported();
    expect(waypoints.map((waypoint) => [waypoint.status, waypoint.eta])).toEqual([
      ['SUCCESSFUL', null],
      ['FAILED', null],
      ['SUCCESSFUL', null],
    ]);
    // The last waypoint done (1), not the last in sequence (2, done at +92 min).
    expect(await client.readCompletion('dc-1', day.id)).toEqual({ type: 'ACTUAL', timestamp: at(100) });
    expect((await client.readRoute('dc-1', day.id)).version).toBe(2);
  });

  it('records cash with the driver from the token; a retry is harmless; the read lists them in order', async () => {
    const answers = await stages.cash();
    const { client } = await stages.imported();
    expect(answers).toEqual(
      [FIRST_CASH, SECOND_CASH, FIRST_CASH].map((body) => ({ record: { ...body, driver_id: driverId } })),
    );
    expect(await client.readAccounting('dc-1', day.id)).toEqual([
      { ...FIRST_CASH, driver_id: driverId },
      { ...SECOND_CASH, driver_id: driverId },
    ]);
  });

  it('finishes the route: FINALIZED completion, version 3, gone from the driver’s lists', async () => {
    const { route: startedRoute } = await stages.started();
    const route = await stages.finished();
    const { client } = await stages.imported();
    expect(route).toEqual({
      ...startedRoute,
      version: 3,
      is_active: false,
      is_finalized: true,
      finalized_timestamp: at(120),
    });
    expect(await client.readRoute('dc-1', day.id)).toEqual(route);
    await stages.expectReadsMatchState();
    expect(await client.readCompletion('dc-1', day.id)).toEqual({ type: 'FINALIZED', timestamp: at(120) });
    expect(await client.readActiveRouteIds('dc-1', driverId)).toEqual([tomorrow.id]);
    expect((await client.driverRoutes(token)).map((entry) => entry.id)).toEqual([tomorrow.id]);
  });

  it('answers a retry of an attempt or cash record stored before the finish, and refuses new ones (3012)', async () => {
    const { attempt: visit } = await stages.visit1();
    await stages.finished();
    const { client } = await stages.imported();
    const retried = await client.asDriver(token, 'POST', attemptPath(day.id, wp(1).id), {
      id: 'visit-1',
      timestamp: at(100),
      status: 'FAILED',
      reason: { code: 'PARTIAL', message: 'part of the delivery refused' },
    });
    expect(expectSuccess(retried, driverApp.recordDriverAttempt)).toEqual({ attempt: visit });
    const cashPath = `/driver/routes/${day.id}/accounting`;
    const cashRetry = await client.asDriver(token, 'POST', cashPath, FIRST_CASH);
    expect(expectSuccess(cashRetry, driverApp.addDriverAccountingRecord)).toEqual({
      record: { ...FIRST_CASH, driver_id: driverId },
    });

    const newVisit = { id: 'visit-late', timestamp: at(121), status: 'SUCCESSFUL' };
    expectError(await client.asDriver(token, 'POST', attemptPath(day.id, wp(1).id), newVisit), 400, 3012);
    const otherCash = { ...FIRST_CASH, cash_received_cents: 1 };
    expectError(await client.asDriver(token, 'POST', cashPath, otherCash), 400, 3012);
    await stages.expectReadsMatchState();
  });

  it('keeps the newest location after the day, and the whole trace with a 90-day expiry', async () => {
    await stages.latePings();
    const { client } = await stages.imported();
    const latest = { timestamp: at(125), location: { latitude: 41.9, longitude: -87.7 } };
    expect(await client.readLocation('dc-1', driverId)).toEqual(latest);
    const bulk = await client.asAccount('GET', `/dcs/dc-1/drivers/${driverId}/driver_bulk_info`);
    expect(
      (expectSuccess(bulk, drivers.getDriverBulkInfo) as { driver_location: DriverLocation }).driver_location,
    ).toEqual(latest);

    const trace = await client.traceOf('dc-1', driverId);
    const pings: [number, LatLng][] = [
      [at(2), { latitude: 40.1, longitude: -88.2 }],
      [at(5), warehouse],
      [at(70), warehouse],
      [at(115), { latitude: 41.95, longitude: -87.75 }],
      [at(125), { latitude: 41.9, longitude: -87.7 }],
    ];
    expect(
      trace
        .map((entry) => [entry.timestamp, { latitude: entry.latitude, longitude: entry.longitude }])
        .sort((a, b) => (a[0] as number) - (b[0] as number)),
    ).toEqual(pings);
    for (const entry of trace) {
      const expiry = Math.floor((entry.timestamp as number) / 1000) + NINETY_DAYS_S;
      expect(Math.abs((entry.expires_at as number) - expiry)).toBeLessThanOrEqual(86_400);
    }
  });

  it('wrote each change’s event with its details, in the order they happened', async () => {
    await stages.finished();
    const { client } = await stages.imported();
    const events = await client.eventsOf(day.id);
    expect(events.map((event) => event.event_type)).toEqual([
      'ROUTE_CREATED',
      'ROUTE_STARTED',
      'ROUTE_ETAS_CHANGED',
      // The first stop's ETA is within the DC's approaching_minutes from the start.
      'WAYPOINT_APPROACHING',
      'WAYPOINT_STATUS_CHANGED',
      'ROUTE_ETAS_CHANGED',
      'WAYPOINT_APPROACHING',
      'WAYPOINT_STATUS_CHANGED',
      'WAYPOINT_STATUS_CHANGED',
      'ROUTE_ETAS_CHANGED',
      'WAYPOINT_STATUS_CHANGED',
      'ROUTE_FINISHED',
    ]);
    for (const event of events) {
      expect(event).toMatchObject({ account_id: client.account.accountId, dc_id: 'dc-1', route_id: day.id });
      expect(event.occurred_at).toEqual(expect.any(Number));
    }
    const ofType = (type: string) => events.filter((event) => event.event_type === type);
    // The events that give tracking links carry what makes them: the API's URL and the route's key.
    const trackingLinks = {
      api_url: fx.api.url,
      key: (await getRouteHeader(client.account.accountId, day.id))?.trackingKey,
    };
    expect(trackingLinks.key).toEqual(expect.any(String));
    expect(ofType('ROUTE_STARTED').map((event) => event.details)).toEqual([
      {
        driver_id: driverId,
        started_timestamp: at(70),
        waypoint_ids: day.waypoints.map((waypoint) => waypoint.id),
        tracking_links: trackingLinks,
      },
    ]);
    expect(ofType('WAYPOINT_STATUS_CHANGED').map((event) => event.details)).toEqual([
      {
        waypoint_id: wp(0).id,
        status: 'SUCCESSFUL',
        attempt_id: 'visit-0',
        timestamp: at(80),
        proof_ids: [],
        signer_name: null,
      },
      {
        waypoint_id: wp(2).id,
        status: 'VISIT_LATER',
        attempt_id: 'visit-2a',
        timestamp: at(82),
        proof_ids: [],
        signer_name: null,
      },
      {
        waypoint_id: wp(2).id,
        status: 'SUCCESSFUL',
        attempt_id: 'visit-2b',
        timestamp: at(92),
        proof_ids: [],
        signer_name: null,
      },
      {
        waypoint_id: wp(1).id,
        status: 'FAILED',
        attempt_id: 'visit-1',
        timestamp: at(100),
        proof_ids: [],
        signer_name: null,
      },
    ]);
    expect(ofType('ROUTE_ETAS_CHANGED').map((event) => event.details)).toEqual(
      stages.state.etaEvents.map((etas) => ({
        ...etasEventDetails(day, etas),
        tracking_links: trackingLinks,
      })),
    );
    // The first set (at the start) names all three waypoints; the last only the one still to visit.
    expect(stages.state.etaEvents.map((etas) => etas.etas.filter((eta) => eta !== null).length)).toEqual([
      3, 2, 1,
    ]);
    expect(ofType('ROUTE_FINISHED').map((event) => event.details)).toEqual([
      expect.objectContaining({ finalized_timestamp: at(120) }),
    ]);
    // Tomorrow's route only has its creation.
    expect(await client.eventTypes(tomorrow.id)).toEqual(['ROUTE_CREATED']);
  });
});
