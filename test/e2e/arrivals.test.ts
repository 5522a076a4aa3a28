import { readFileSync } from 'node:fs';
import { check, getIssues } from '@placemarkio/check-geojson';
import { beforeAll, describe, expect, it } from 'vitest';
import * as dcs from '../../functions/api/dcs/index';
import * as drivers from '../../functions/api/drivers/index';
import * as routes from '../../functions/api/routes/index';
import type { TracePoint } from '../../functions/domain/arrival-detection';
import { NO_REQUIREMENTS } from '../../functions/models/delivery-requirements';
import { callRaw, expectError, expectSuccess, readAllPages } from '../support/http';
import { exampleRoute, importRoute } from '../support/routes';
import type { RecordedTrace } from '../support/synthetic-traces';
import { scanItems } from '../support/table-scans';
import { eventTypeOf, type ReceivedDelivery, waitUntil } from '../support/webhook-receiver';
import { useWebhookApi } from '../support/webhooks';

/**
 * Arrivals and departures detected from the driver app's location pings (docs/api.md, Arrivals and
 * departures), through the API: recorded traces sent as pings, the waypoints' visits read back, the events
 * received by a real receiver through the whole pipeline, and the DC's settings.
 */

const hooks = useWebhookApi('arrivals', { streams: true });
const MINUTE = 60_000;
/** The five traces' drives at once: about two minutes on a quiet machine, beside another file; 3x that and more. */
const DRIVES_DEADLINE_MS = 450_000;

const trace = (name: string): RecordedTrace =>
  JSON.parse(readFileSync(new URL(`../fixtures/traces/${name}.json`, import.meta.url), 'utf8'));

/** The trace moved to end a minute ago (pings may not come from the future), on a whole second. */
function recent(recorded: RecordedTrace): TracePoint[] {
  const last = Math.max(...recorded.points.map((point) => point.timestamp));
  const shift = Math.floor((Date.now() - MINUTE) / 1000) * 1000 - last;
  return recorded.points.map((point) => ({ ...point, timestamp: point.timestamp + shift }));
}

interface Visit {
  arrived_timestamp: number;
  departed_timestamp: number | null;
}
interface WaypointRead {
  id: string;
  arrived_timestamp: number | null;
  departed_timestamp: number | null;
  visits: Visit[];
}

/**
 * A driver of its own on a started route whose three stops are the trace's, and the trace's pings sent in
 * their delivery order. Returns the pings as sent (their timestamps moved to now).
 */
/** The pings each route's driver sent, by route id, as sent. */
const sentPings = new Map<string, TracePoint[]>();

async function driveTrace(
  routeId: string,
  recorded: RecordedTrace,
  dcId = 'dc-1',
  account = hooks.accounts.acme,
): Promise<TracePoint[]> {
  const driverId = `${routeId}-driver`;
  const token = await hooks.fx.createDriver(account.key, dcId, driverId, 'Dana Driver');
  const points = recent(recorded);
  const route = exampleRoute(routeId, {
    waypoints: 3,
    driverId,
    startTime: (points[0] as TracePoint).timestamp,
  });
  route.waypoints.forEach((waypoint, index) => {
    const stop = recorded.stops[index] as RecordedTrace['stops'][number];
    waypoint.id = `${routeId}-${stop.id}`;
    waypoint.location = stop.location;
  });
  await importRoute(hooks.fx.api.url, account.key, dcId, route);
  const started = await hooks.fx.as(token, 'POST', `/driver/routes/${routeId}/start`, {
    timestamp: (points[0] as TracePoint).timestamp - MINUTE,
  });
  expect(started.status).toBe(200);
  for (const position of recorded.deliveryOrder) {
    const { timestamp, latitude, longitude } = points[position] as TracePoint;
    const sent = await hooks.fx.as(token, 'POST', '/driver/location', {
      timestamp,
      location: { latitude, longitude },
    });
    expect(sent.status).toBe(200);
  }
  sentPings.set(routeId, points);
  return points;
}

async function waypointsOf(
  routeId: string,
  dcId = 'dc-1',
  account = hooks.accounts.acme,
): Promise<WaypointRead[]> {
  const response = await hooks.fx.as(account.key, 'GET', `/dcs/${dcId}/routes/${routeId}/waypoints`);
  return (expectSuccess(response, routes.listWaypoints) as { waypoints: WaypointRead[] }).waypoints;
}

describe('arrivals and departures from the driver’s pings', () => {
  let receiver: Awaited<ReturnType<typeof hooks.receiver>>;
  /** Each trace's drive, its driver's pings one after another; the drivers at once (minutes apart). */
  const drives = new Map<string, Promise<TracePoint[]>>();
  const drive = (routeId: string, start: () => Promise<TracePoint[]>) => {
    const driving = start();
    // A failed drive fails its own test, which awaits it.
    driving.catch(() => undefined);
    drives.set(routeId, driving);
  };
  const driven = (routeId: string) => drives.get(routeId) as Promise<TracePoint[]>;
  let detectionOff: unknown;
  beforeAll(async () => {
    receiver = await hooks.receiver();
    await hooks.createWebhook(receiver.url, ['WAYPOINT_ARRIVED', 'WAYPOINT_DEPARTED']);
    const { globex } = hooks.accounts;
    detectionOff = await hooks.fx.as(globex.key, 'PATCH', '/dcs/gx-1/settings', { arrival_detection: false });
    drive('twice', () => driveTrace('twice', trace('visited-twice')));
    drive('shuffled', () => driveTrace('shuffled', trace('out-of-order')));
    drive('passing', () => driveTrace('passing', trace('pass-by')));
    drive('resent', () => driveTrace('resent', trace('redelivered')));
    drive('detection-off', () => driveTrace('detection-off', trace('visited-twice'), 'gx-1', globex));
  });

  it(
    'a stop visited twice: two visits on the waypoint, each arrival and departure sent once, in order',
    async () => {
      const points = await driven('twice');
      const [a, b, c] = await waypointsOf('twice');
      expect(a?.visits).toHaveLength(2);
      expect(b?.visits).toHaveLength(1);
      expect(c?.visits).toEqual([]);
      expect(c?.arrived_timestamp).toBeNull();
      const [first, second] = (a as WaypointRead).visits as [Visit, Visit];
      expect(a?.arrived_timestamp).toBe(second.arrived_timestamp);
      expect(a?.departed_timestamp).toBe(second.departed_timestamp);
      // Every time is a ping's own.
      const sentTimes = new Set(points.map((point) => point.timestamp));
      for (const visit of [first, second, ...(b?.visits ?? [])]) {
        expect(sentTimes.has(visit.arrived_timestamp)).toBe(true);
        expect(sentTimes.has(visit.departed_timestamp as number)).toBe(true);
        expect(visit.departed_timestamp as number).toBeGreaterThan(visit.arrived_timestamp + MINUTE);
      }
      expect(first.departed_timestamp as number).toBeLessThan(b?.visits[0]?.arrived_timestamp as number);

      const ofRoute = (delivery: ReceivedDelivery) => delivery.json.route_id === 'twice';
      await waitUntil('the six visit events', () =>
        receiver.deliveries.filter(ofRoute).length >= 6 ? true : undefined,
      );
      const received = receiver.deliveries
        .filter(ofRoute)
        .sort((x, y) => Number(x.json.sequence) - Number(y.json.sequence));
      expect(received.map((delivery) => [eventTypeOf(delivery), delivery.json.waypoint_id])).toEqual([
        ['WAYPOINT_ARRIVED', a?.id],
        ['WAYPOINT_DEPARTED', a?.id],
        ['WAYPOINT_ARRIVED', b?.id],
        ['WAYPOINT_DEPARTED', b?.id],
        ['WAYPOINT_ARRIVED', a?.id],
        ['WAYPOINT_DEPARTED', a?.id],
      ]);
      expect(received[1]?.json).toMatchObject({
        driver_id: 'twice-driver',
        arrived_timestamp: first.arrived_timestamp,
        departed_timestamp: first.departed_timestamp,
        dwell_seconds: Math.floor(((first.departed_timestamp as number) - first.arrived_timestamp) / 1000),
      });
      // Sequences follow one another (ROUTE_CREATED and ROUTE_STARTED took theirs first).
      const sequences = received.map((delivery) => Number(delivery.json.sequence));
      expect(sequences).toEqual(sequences.map((_, index) => (sequences[0] as number) + index));
    },
    DRIVES_DEADLINE_MS,
  );

  it(
    'pings delivered out of order and late: each stop arrived and departed once',
    async () => {
      await driven('shuffled');
      const [a, , c] = await waypointsOf('shuffled');
      expect(a?.visits).toHaveLength(1);
      expect(c?.visits).toHaveLength(1);
      for (const visit of [...(a?.visits ?? []), ...(c?.visits ?? [])])
        expect(visit.departed_timestamp as number).toBeGreaterThan(visit.arrived_timestamp);
    },
    DRIVES_DEADLINE_MS,
  );

  it(
    'pings of a stay delivered again after two more stops: that stop arrived and departed once',
    async () => {
      await driven('resent');
      const waypoints = await waypointsOf('resent');
      expect(waypoints.map((waypoint) => waypoint.visits.length)).toEqual([1, 1, 1]);
      for (const waypoint of waypoints)
        expect(waypoint.departed_timestamp as number).toBeGreaterThan(waypoint.arrived_timestamp as number);
    },
    DRIVES_DEADLINE_MS,
  );

  it(
    'a pass at 50 km/h 30 m from a stop records nothing',
    async () => {
      await driven('passing');
      for (const waypoint of await waypointsOf('passing')) expect(waypoint.visits).toEqual([]);
    },
    DRIVES_DEADLINE_MS,
  );

  it(
    'a DC with arrival_detection false records no visit from the pings',
    async () => {
      expect(
        expectSuccess(detectionOff as Parameters<typeof expectSuccess>[0], dcs.updateDcSettings),
      ).toMatchObject({
        settings: { arrival_detection: false, arrival_radius_meters: 100 },
      });
      await driven('detection-off');
      for (const waypoint of await waypointsOf('detection-off', 'gx-1', hooks.accounts.globex)) {
        expect(waypoint.visits).toEqual([]);
        expect(waypoint.arrived_timestamp).toBeNull();
      }
      // The same trace on dc-1, whose detection is on, is visited (the first test): the setting is what differs.
      expect(sentPings.get('detection-off')?.length).toBe(trace('visited-twice').points.length);
    },
    DRIVES_DEADLINE_MS,
  );
});

describe('location history: GET .../drivers/{driver_id}/locations and GET .../routes/{route_id}/track', () => {
  const as = (key: string, path: string, headers: Record<string, string> = {}) =>
    hooks.fx.request('GET', path, { key, headers });
  const geo = (path: string) =>
    callRaw(hooks.fx.api.url, 'GET', path, {
      headers: { Authorization: `Bearer ${hooks.accounts.acme.key}`, Accept: 'application/geo+json' },
    });
  interface Ping {
    timestamp: number;
    location: { latitude: number; longitude: number };
  }

  it('answers the driver’s pings in time order, a page at a time, between from and to', async () => {
    const { key } = hooks.accounts.acme;
    const sent = sentPings.get('twice') as TracePoint[];
    const from = (sent[0] as TracePoint).timestamp;
    const to = (sent.at(-1) as TracePoint).timestamp;
    const pages = await readAllPages(
      (path) => as(key, path),
      '/dcs/dc-1/drivers/twice-driver/locations',
      drivers.listDriverLocations,
      { from: String(from - 1000), to: String(to), limit: '40' },
    );
    expect(pages.length).toBeGreaterThan(2);
    const pings = pages.flatMap((page) => (page as { locations: Ping[] }).locations);
    expect(pings).toEqual(
      sent.map((point) => ({
        timestamp: point.timestamp,
        location: { latitude: point.latitude, longitude: point.longitude },
      })),
    );
    // A window inside the day: just its pings.
    const middle = sent[50] as TracePoint;
    const narrow = expectSuccess(
      await as(
        key,
        `/dcs/dc-1/drivers/twice-driver/locations?from=${middle.timestamp}&to=${middle.timestamp}`,
      ),
      drivers.listDriverLocations,
    ) as { locations: Ping[] };
    expect(narrow.locations.map((ping) => ping.timestamp)).toEqual([middle.timestamp]);
  });

  it('answers the route’s track as RFC 7946 GeoJSON that a GeoJSON checker accepts: [longitude, latitude], a LineString, the visits as Points', async () => {
    const sent = sentPings.get('twice') as TracePoint[];
    const response = await geo('/dcs/dc-1/routes/twice/track');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/geo+json');
    // @placemarkio/check-geojson: geojson.io's checker, independent of the service's own schema.
    const collection = check(response.text) as unknown as {
      type: string;
      features: { geometry: { type: string; coordinates: unknown }; properties: Record<string, unknown> }[];
    };
    expect(getIssues(response.text)).toEqual([]);
    expect(collection.type).toBe('FeatureCollection');
    const [path, ...visits] = collection.features;
    expect(path?.geometry.type).toBe('LineString');
    expect(path?.geometry.coordinates).toEqual(sent.map((point) => [point.longitude, point.latitude]));
    expect(path?.properties.timestamps).toEqual(sent.map((point) => point.timestamp));
    const stops = trace('visited-twice').stops;
    expect(visits.map((visit) => [visit.properties.kind, visit.geometry.type])).toEqual([
      ['ARRIVED', 'Point'],
      ['DEPARTED', 'Point'],
      ['ARRIVED', 'Point'],
      ['DEPARTED', 'Point'],
      ['ARRIVED', 'Point'],
      ['DEPARTED', 'Point'],
    ]);
    const a = (stops[0] as RecordedTrace['stops'][number]).location;
    expect(visits[0]?.geometry.coordinates).toEqual([a.longitude, a.latitude]);

    // The same as JSON, and paged: the visits on the first page only; every page checks out as GeoJSON.
    const json = expectSuccess(
      await as(hooks.accounts.acme.key, '/dcs/dc-1/routes/twice/track'),
      routes.getRouteTrack,
    ) as {
      locations: Ping[];
      visits: unknown[];
      driver_id: string;
    };
    expect(json.driver_id).toBe('twice-driver');
    expect(json.locations).toHaveLength(sent.length);
    expect(json.visits).toHaveLength(6);
    const first = await geo('/dcs/dc-1/routes/twice/track?limit=50');
    const token = (JSON.parse(first.text) as { next_token?: string }).next_token as string;
    expect(token).toEqual(expect.any(String));
    const second = await geo(`/dcs/dc-1/routes/twice/track?limit=50&next_token=${token}`);
    expect(getIssues(second.text)).toEqual([]);
    expect((check(second.text) as unknown as { features: unknown[] }).features).toHaveLength(1);
  });

  it('refuses a window that ends before it starts, and a token of another list, with 1006', async () => {
    const { key } = hooks.accounts.acme;
    expect(
      expectError(await as(key, '/dcs/dc-1/drivers/twice-driver/locations?from=2000&to=1000'), 400, 1006),
    ).toContain('query.from');
    const token = Buffer.from(
      JSON.stringify({ pk: 'TRACE#x/dc-1/twice-driver', sk: '000000000000001' }),
    ).toString('base64url');
    expectError(await as(key, `/dcs/dc-1/drivers/twice-driver/locations?next_token=${token}`), 400, 1006);
    expectError(await as(key, '/dcs/dc-1/drivers/no-such-driver/locations'), 404, 1003);
    expectError(await as(key, '/dcs/dc-1/routes/no-such-route/track'), 404, 3003);
  });

  it('answers 403 for another account’s DC, 404 for a route of another account, and 401 without a key', async () => {
    const { globex } = hooks.accounts;
    expectError(await as(globex.key, '/dcs/dc-2/drivers/twice-driver/locations'), 403, 1002);
    expectError(await as(globex.key, '/dcs/gx-1/routes/twice/track'), 404, 3003);
    // Globex's own dc-1 holds no driver or route of Acme's.
    expectError(await as(globex.key, '/dcs/dc-1/drivers/twice-driver/locations'), 404, 1003);
    expectError(await as(globex.key, '/dcs/dc-1/routes/twice/track'), 404, 3003);
    expect((await hooks.fx.request('GET', '/dcs/dc-1/routes/twice/track', {})).status).toBe(401);
  });
});

describe('WAYPOINT_APPROACHING and the tracking page', () => {
  it('goes out once per stop whose ETA comes within 10 minutes, and the stop’s page says the driver is close', async () => {
    const receiver = await hooks.receiver();
    await hooks.createWebhook(receiver.url, ['WAYPOINT_APPROACHING']);
    const { acme } = hooks.accounts;
    const token = await hooks.fx.createDriver(acme.key, 'dc-1', 'near-driver', 'Dana Driver');
    // Three stops a minute's service apart at the warehouse, and a fourth 40 km away (an hour's drive).
    const now = Math.floor(Date.now() / 1000) * 1000;
    const route = exampleRoute('near', { waypoints: 4, driverId: 'near-driver', startTime: now });
    route.waypoints.forEach((waypoint, index) => {
      waypoint.location = index < 3 ? route.start_warehouse.location : { latitude: 42.21, longitude: -87.65 };
      waypoint.service_time_minutes = 1;
      waypoint.time_windows = [];
    });
    await importRoute(hooks.fx.api.url, acme.key, 'dc-1', route);
    expect((await hooks.fx.as(token, 'POST', '/driver/routes/near/start', { timestamp: now })).status).toBe(
      200,
    );
    const ping = await hooks.fx.as(token, 'POST', '/driver/location', {
      timestamp: now + 1000,
      location: route.start_warehouse.location,
    });
    expect(ping.status).toBe(200);

    const approaching = () => receiver.deliveries.filter((delivery) => delivery.json.route_id === 'near');
    await waitUntil('three WAYPOINT_APPROACHING', () => (approaching().length >= 3 ? true : undefined));
    const [first, , third] = await waypointsOf('near');
    const bodies = approaching()
      .map((delivery) => delivery.json)
      .sort((a, b) => Number(a.stops_before) - Number(b.stops_before));
    expect(bodies.map((body) => [body.event, body.waypoint_id, body.stops_before])).toEqual([
      ['WAYPOINT_APPROACHING', first?.id, 0],
      ['WAYPOINT_APPROACHING', 'near-wp-1', 1],
      ['WAYPOINT_APPROACHING', third?.id, 2],
    ]);
    const thirdRead = (await waypointsOf('near'))[2] as WaypointRead & { tracking_url: string; eta: number };
    expect(bodies[2]).toMatchObject({ tracking_url: thirdRead.tracking_url });
    expect(bodies[2]?.eta_timestamp as number).toBeLessThanOrEqual(now + 10 * MINUTE);

    const page = await hooks.fx.request('GET', thirdRead.tracking_url.slice(hooks.fx.api.url.length), {});
    expect((page.body as { data: Record<string, unknown> }).data).toMatchObject({
      driver_close: true,
      stops_before: 2,
    });
    const far = await hooks.fx.request(
      'GET',
      ((await waypointsOf('near'))[3] as WaypointRead & { tracking_url: string }).tracking_url.slice(
        hooks.fx.api.url.length,
      ),
      {},
    );
    expect((far.body as { data: Record<string, unknown> }).data).toMatchObject({ driver_close: false });
    // Once per stop: a visit and new ETAs later, no stop is announced again.
    const visit = await hooks.fx.as(token, 'POST', `/driver/routes/near/waypoints/${first?.id}/attempts`, {
      id: 'near-visit-0',
      timestamp: now + 2000,
      status: 'SUCCESSFUL',
    });
    expect(visit.status).toBe(200);
    // The visit's new ETAs are written with their events before the attempt answers.
    const where = { entity: 'EVENT', route_id: 'near', event_type: 'WAYPOINT_APPROACHING' };
    expect(await scanItems(where, hooks.fx.api.tableName)).toHaveLength(3);
  }, 180_000);
});

describe('GET and PATCH /dcs/{dc_id}/settings', () => {
  const settings = (key: string, method: 'GET' | 'PATCH', dcId = 'dc-2', body?: unknown) =>
    hooks.fx.as(key, method, `/dcs/${dcId}/settings`, body);

  it('answers the defaults, then changes only the settings given', async () => {
    const { key } = hooks.accounts.acme;
    expect(expectSuccess(await settings(key, 'GET'), dcs.getDcSettings)).toEqual({
      settings: {
        arrival_detection: true,
        arrival_radius_meters: 100,
        arrival_dwell_seconds: 60,
        departure_margin_meters: 50,
        approaching_minutes: 10,
        delivery_requirements: NO_REQUIREMENTS,
      },
    });
    const changed = await settings(key, 'PATCH', 'dc-2', {
      arrival_radius_meters: 150,
      approaching_minutes: 5,
    });
    const expected = {
      settings: {
        arrival_detection: true,
        arrival_radius_meters: 150,
        arrival_dwell_seconds: 60,
        departure_margin_meters: 50,
        approaching_minutes: 5,
        delivery_requirements: NO_REQUIREMENTS,
      },
    };
    expect(expectSuccess(changed, dcs.updateDcSettings)).toEqual(expected);
    expect(expectSuccess(await settings(key, 'GET'), dcs.getDcSettings)).toEqual(expected);
  });

  it('refuses settings out of range, not whole, or none, with 1006 naming the field', async () => {
    const { key } = hooks.accounts.acme;
    const cases: [unknown, string][] = [
      [{ arrival_radius_meters: 10 }, 'arrival_radius_meters'],
      [{ arrival_dwell_seconds: 1801 }, 'arrival_dwell_seconds'],
      [{ departure_margin_meters: 12.5 }, 'departure_margin_meters'],
      [{ approaching_minutes: '10' }, 'approaching_minutes'],
      [{ arrival_detection: 'false' }, 'arrival_detection'],
      [{}, 'arrival_radius_meters'],
    ];
    for (const [body, field] of cases) {
      const message = expectError(await settings(key, 'PATCH', 'dc-2', body), 400, 1006);
      expect(message.startsWith(`${field}:`)).toBe(true);
    }
  });

  it('answers 403 for another account’s DC, and 401 without a key', async () => {
    const { globex } = hooks.accounts;
    expectError(await settings(globex.key, 'GET', 'dc-2'), 403, 1002);
    expectError(await settings(globex.key, 'PATCH', 'dc-2', { arrival_dwell_seconds: 30 }), 403, 1002);
    // Globex's own dc-1 is not Acme's.
    expectSuccess(await settings(globex.key, 'GET', 'gx-1'), dcs.getDcSettings);
    const anonymous = await hooks.fx.request('GET', '/dcs/dc-2/settings', {});
    expect(anonymous.status).toBe(401);
  });
});
