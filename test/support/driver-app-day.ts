import { expect } from 'vitest';
import * as driverApp from '../../functions/api/driver-app/index';
import { DEFAULT_APPROACHING_MINUTES } from '../../functions/domain/dc-settings';
import type { LatLng } from '../../functions/domain/etas';
import {
  type Attempt,
  type AttemptBody,
  at,
  BASE,
  type DriverRoute,
  driverAppClient,
  type Etas,
  etasFrom,
  expectedInvoices,
  type ItemStatus,
  importedWaypoint,
  MINUTE,
  movedEnough,
  nth,
  routeOf,
  trackingUrlUnder,
  type Waypoint,
} from './driver-app';
import { once, type TestApiFixture } from './fixtures';
import { expectSuccess } from './http';
import { strongToken } from './login-tokens';

export const driverId = 'day-driver';
export const token = strongToken('day-driver-login-token-01');
export const day = routeOf('day-1', { waypoints: 3, driverId });
const APPROACHING_MS = DEFAULT_APPROACHING_MINUTES * 60_000;

/** A second active route of the driver, planned for tomorrow and imported first. */
export const tomorrow = routeOf('day-2', { waypoints: 1, driverId, startTime: BASE + 24 * 60 * MINUTE });
export const warehouse = day.start_warehouse.location;
export const wp = (sequence: number) => nth(day.waypoints, sequence);
export const item = (w: number, t: number) => nth(nth(wp(w).invoices, 0).items, t).id;

export const FIRST_CASH = { id: 'cash-day-b', cash_received_cents: 12_345, cash_container_id: 'box-1' };
export const SECOND_CASH = { id: 'cash-day-a', cash_received_cents: 0, cash_container_id: 'box-2' };

/**
 * A whole delivery day of one driver, as fixtures: a new account's world built in stages. Each stage (a ping,
 * the start, a visit, the finish...) is made on first use from the stage before it, so a test awaits the stage
 * it checks and runs alone (`-t '<name>'`) as well as with the others, each stage made once. The stages keep
 * `state`, what every read must show after them; the expect helpers compare the reads with it.
 */
export function deliveryDay(fx: TestApiFixture) {
  /** What every read must show, updated by the stages as the day goes on. */
  const state = {
    status: ['PENDING', 'PENDING', 'PENDING'] as Waypoint['status'][],
    attempts: [[], [], []] as Attempt[][],
    items: {} as Record<string, ItemStatus>,
    etas: etasFrom(day, BASE, warehouse, new Set()),
    emitted: etasFrom(day, BASE, warehouse, new Set()),
    done: new Set<number>(),
    /** The event types expected so far, in order; the details are checked at the end. */
    events: ['ROUTE_CREATED'] as string[],
    etaEvents: [] as Etas[],
    /** The waypoints WAYPOINT_APPROACHING went out for. */
    approached: new Set<number>(),
  };

  /**
   * Recomputes the ETAs as an action at `timestamp` from `origin` does; expects ROUTE_ETAS_CHANGED when they
   * moved, then WAYPOINT_APPROACHING for each stop still to visit whose ETA came within the DC's default
   * approaching_minutes for the first time.
   */
  function refresh(timestamp: number, origin: LatLng) {
    state.etas = etasFrom(day, timestamp, origin, state.done);
    const moved = movedEnough(state.etas, state.emitted);
    if (moved) {
      state.emitted = state.etas;
      state.events.push('ROUTE_ETAS_CHANGED');
      state.etaEvents.push(state.etas);
    }
    state.etas.etas.forEach((eta, sequence) => {
      if (eta === null || eta - timestamp > APPROACHING_MS || state.approached.has(sequence)) return;
      state.approached.add(sequence);
      state.events.push('WAYPOINT_APPROACHING');
    });
    return moved;
  }

  // ---------------------------------------------------------------------------------------------------
  // The stages of the day
  // ---------------------------------------------------------------------------------------------------

  /** The account, the driver and both routes imported; the route as imported. */
  const imported = once(async () => {
    const client = driverAppClient(fx.api, await fx.account('Acme', [{ dcId: 'dc-1' }]));
    expect(await client.createDriver('dc-1', driverId, token)).toBe(token);
    await client.importRoute('dc-1', tomorrow);
    await client.importRoute('dc-1', day);
    return { client, route: await client.readRoute('dc-1', day.id) };
  });

  /** Two pings before the start, the older one arriving second. */
  const earlyPings = once(async () => {
    const { client } = await imported();
    await client.driverLocation(token, at(5), warehouse);
    await client.driverLocation(token, at(2), { latitude: 40.1, longitude: -88.2 });
  });

  const started = once(async () => {
    await earlyPings();
    const { client } = await imported();
    const route = await client.driverStart(token, day.id, at(70));
    state.events.push('ROUTE_STARTED');
    // From the warehouse (where the driver last was) at the start: 70 minutes later than planned.
    return { route, moved: refresh(at(70), warehouse) };
  });

  const pingAtStart = once(async () => {
    await started();
    const { client } = await imported();
    await client.driverLocation(token, at(70), warehouse);
    return { moved: refresh(at(70), warehouse) };
  });

  /** An attempt of the driver at waypoint `sequence`, and the statuses of the items it decides. */
  async function visit(
    sequence: number,
    body: AttemptBody,
    status: Waypoint['status'],
    items: Record<string, ItemStatus>,
  ) {
    const { client } = await imported();
    const attempt = await client.driverAttempt(token, day.id, wp(sequence).id, body);
    state.status[sequence] = status;
    state.attempts[sequence] = [...nth(state.attempts, sequence), attempt];
    if (status !== 'VISIT_LATER') state.done.add(sequence);
    Object.assign(state.items, items);
    state.events.push('WAYPOINT_STATUS_CHANGED');
    return { body, attempt, moved: refresh(body.timestamp, body.location as LatLng) };
  }

  /** A SUCCESSFUL attempt `id` at waypoint `sequence` at minute `minute`, which delivers both its items. */
  function deliverBoth(sequence: number, id: string, minute: number) {
    const body: AttemptBody = {
      id,
      timestamp: at(minute),
      status: 'SUCCESSFUL',
      location: wp(sequence).location,
    };
    const delivered = { status: 'SUCCESSFUL', timestamp: at(minute) } as const;
    return visit(sequence, body, 'SUCCESSFUL', {
      [item(sequence, 0)]: delivered,
      [item(sequence, 1)]: delivered,
    });
  }

  const visit0 = once(async () => {
    await pingAtStart();
    return deliverBoth(0, 'visit-0', 80);
  });

  const visit2Later = once(async () => {
    await visit0();
    const reason = { code: 'NO_ONE', message: 'nobody to sign' };
    const body: AttemptBody = {
      id: 'visit-2a',
      timestamp: at(82),
      status: 'VISIT_LATER',
      location: wp(2).location,
      items: [{ id: item(2, 0), status: 'FAILED', reason }],
    };
    return visit(2, body, 'VISIT_LATER', { [item(2, 0)]: { status: 'FAILED', timestamp: at(82), reason } });
  });

  const visit2Again = once(async () => {
    await visit2Later();
    return deliverBoth(2, 'visit-2b', 92);
  });

  const visit1 = once(async () => {
    await visit2Again();
    const body: AttemptBody = {
      id: 'visit-1',
      timestamp: at(100),
      status: 'FAILED',
      reason: { code: 'PARTIAL', message: 'part of the delivery refused' },
      location: wp(1).location,
      items: [
        { id: item(1, 0), status: 'FAILED', reason: { code: 'DAMAGED', message: 'box crushed' } },
        { id: item(1, 1), status: 'SUCCESSFUL' },
      ],
    };
    return visit(1, body, 'FAILED', {
      [item(1, 0)]: {
        status: 'FAILED',
        timestamp: at(100),
        reason: { code: 'DAMAGED', message: 'box crushed' },
      },
      [item(1, 1)]: { status: 'SUCCESSFUL', timestamp: at(100) },
    });
  });

  /** Cash recorded twice and the first record again; the answers. */
  const cash = once(async () => {
    await visit1();
    const { client } = await imported();
    const answers: unknown[] = [];
    for (const body of [FIRST_CASH, SECOND_CASH, FIRST_CASH]) {
      const response = await client.asDriver(token, 'POST', `/driver/routes/${day.id}/accounting`, body);
      answers.push(expectSuccess(response, driverApp.addDriverAccountingRecord));
    }
    return answers;
  });

  const finished = once(async () => {
    await cash();
    const { client } = await imported();
    const route = await client.driverFinish(token, day.id, at(120));
    state.events.push('ROUTE_FINISHED');
    return route;
  });

  /** Two pings after the day, the older one arriving second. */
  const latePings = once(async () => {
    await finished();
    const { client } = await imported();
    await client.driverLocation(token, at(125), { latitude: 41.9, longitude: -87.7 });
    await client.driverLocation(token, at(115), { latitude: 41.95, longitude: -87.75 });
  });

  // ---------------------------------------------------------------------------------------------------
  // What the reads show
  // ---------------------------------------------------------------------------------------------------

  async function expectReadsMatchState() {
    const { client } = await imported();
    const waypoints = await client.readWaypoints('dc-1', day.id);
    const expected = day.waypoints.map((_, sequence) => ({
      ...importedWaypoint(day, sequence),
      status: state.status[sequence],
      eta: state.done.has(sequence) ? null : state.etas.etas[sequence],
      attempts: state.attempts[sequence],
      tracking_url: trackingUrlUnder(fx.api.url),
    }));
    expect(waypoints).toEqual(expected);
    for (const waypoint of expected) {
      expect(await client.readWaypoint('dc-1', day.id, waypoint.id)).toEqual(waypoint);
    }
    expect(await client.readInvoices('dc-1', day.id)).toEqual(expectedInvoices(day, state.items));
    expect(await client.eventTypes(day.id)).toEqual(state.events);
    return waypoints;
  }

  /** The driver app's view of the route is the API key's reads put together. */
  async function expectDriverViewMatchesReads(listed: DriverRoute | undefined) {
    const { client } = await imported();
    const [route, waypoints, invoices] = await Promise.all([
      client.readRoute('dc-1', day.id),
      client.readWaypoints('dc-1', day.id),
      client.readInvoices('dc-1', day.id),
    ]);
    expect(listed).toEqual({
      ...route,
      // The driver app leaves out the customers' tracking links and who they are (recipient).
      waypoints: waypoints.map(({ tracking_url, recipient, ...waypoint }) => ({
        ...waypoint,
        invoices: invoices.filter((invoice) => waypoint.invoice_ids.includes(invoice.id)),
      })),
    });
  }

  async function expectEstimatedCompletion() {
    const { client } = await imported();
    expect(await client.readCompletion('dc-1', day.id)).toEqual({
      type: 'ESTIMATED',
      timestamp: state.etas.completion,
    });
  }

  return {
    state,
    imported,
    earlyPings,
    started,
    pingAtStart,
    visit0,
    visit2Later,
    visit2Again,
    visit1,
    cash,
    finished,
    latePings,
    expectReadsMatchState,
    expectDriverViewMatchesReads,
    expectEstimatedCompletion,
  };
}
