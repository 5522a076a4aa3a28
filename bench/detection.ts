import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { tracePointItem } from '../functions/data/location-trace';
import { addDc, issueApiKey } from '../functions/domain/accounts';
import { configure } from '../functions/shared/config';
import { sampleRoute } from '../local/app/sample-route';
import type { PartitionUsage } from '../local/aws-proxy/dynamodb-partitions';
import { inParallel, RawTable } from './dynamo';
import { ApiClient, type JsonResponse } from './http';
import { measureLocationHandler } from './location-handler-warm';
import { consumedBetween, partitionReport } from './partitions';
import { type DayPing, dayPings, dayStops, PING_INTERVAL_MS } from './ping-day';
import type { StackInfo } from './runtime';
import type { Scenario, ScenarioResult } from './scenario';
import { check, median, round, summarizeLatencies } from './stats';

/**
 * `arrival_detection`: what arrival detection costs a ping (docs/api.md "Arrivals and departures"), measured in
 * one run against pings without it: two DCs of the demo account, the demo DC (detection on, the default) and
 * one made here whose settings turn it off, each with drivers on started routes of like stops, pinging the
 * same day (bench/ping-day.ts) at the same time. Then the ping handler alone, in-process, and a 10-hour day
 * read back through the history endpoint.
 */

/** Drivers per DC pinging through the local runtime, one ping at a time each, all at once. */
const DRIVERS_PER_DC = 4;
/** Each one's pings: 2.5 hours of a day, 30 stops. */
const PINGS_PER_DRIVER = 900;
/** The in-process run: this many pings of each day, the first WARMUP not timed. */
const HANDLER_PINGS = 1200;
const HANDLER_WARMUP = 100;
/** A 10-hour day at one ping every 10 s. */
const HISTORY_PINGS = 3600;
const HISTORY_READS = 3;
const IMPORT_TIMEOUT_MS = 120_000;

const WRITE_UNITS_TARGET = 1;
const HANDLER_RATIO_TARGET = 1.2;
const PAGE_MS_TARGET = 500;

type Group = 'on' | 'off';

interface BenchDriver {
  group: Group;
  dcId: string;
  id: string;
  token: string;
  routeId: string;
  pings: DayPing[];
}

class Api {
  readonly client: ApiClient;
  constructor(stack: StackInfo, apiKey: string, sockets: number) {
    this.client = new ApiClient(stack.api_url, apiKey, sockets);
  }
  async expect(what: string, response: Promise<JsonResponse>, status = 200): Promise<unknown> {
    const answer = await response;
    if (answer.status !== status)
      throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
    return (answer.body as { data?: unknown }).data;
  }
}

export const arrivalDetectionScenario: Scenario = {
  name: 'arrival_detection',
  async run({ demo: { stack, accountId, dcId }, abort, log }) {
    return measureDetection({ stack, accountId, dcId, abort, log });
  },
};

async function measureDetection(options: {
  stack: StackInfo & { operator_environment?: Record<string, string> };
  accountId: string;
  dcId: string;
  abort: AbortSignal;
  log: (message: string) => void;
}): Promise<ScenarioResult> {
  const { stack, accountId, abort, log } = options;
  if (!stack.operator_environment) throw new Error('stack.json has no operator_environment');
  const runId = randomBytes(4).toString('hex');
  // A DC of its own for the pings without detection, and a key of its own (the demo key's authorizer answer,
  // cached by the gateway, lists the DCs it had).
  configure(stack.operator_environment);
  const offDcId = `bench-detection-off-${runId}`;
  await addDc(accountId, { dcId: offDcId, timeZone: 'UTC', name: 'Bench DC without detection' });
  const { apiKey } = await issueApiKey(accountId);
  const api = new Api(stack, apiKey, 2 * DRIVERS_PER_DC + 2);
  const raw = new RawTable(stack, abort);
  try {
    await api.expect(
      'PATCH settings',
      api.client.patch(
        `/dcs/${encodeURIComponent(offDcId)}/settings`,
        JSON.stringify({ arrival_detection: false }),
      ),
    );
    const onSettings = (await api.expect(
      'GET settings',
      api.client.get(`/dcs/${encodeURIComponent(options.dcId)}/settings`),
    )) as { settings: { arrival_detection: boolean } };
    if (!onSettings.settings.arrival_detection) throw new Error(`DC ${options.dcId} has detection off`);

    const dayStart = Math.floor((Date.now() - 11 * 3_600_000) / 1000) * 1000;
    const dcOf = (group: Group) => (group === 'on' ? options.dcId : offDcId);
    const makeDriver = async (group: Group, index: number, pings: number): Promise<BenchDriver> => {
      const id = `bench-detect-${group}-${runId}-${index}`;
      const origin = { latitude: 41.6 + index * 0.05, longitude: -87.9 };
      const driver: BenchDriver = {
        group,
        dcId: dcOf(group),
        id,
        token: `bench-detect-${randomBytes(32).toString('base64url')}`,
        routeId: `${id}-route`,
        pings: dayPings(origin, dayStart, pings),
      };
      await setUpDriver(api, driver, dayStart, dayStops(origin, pings), abort);
      return driver;
    };

    log(
      `detection: ${DRIVERS_PER_DC + 1} drivers on started routes in each of DC ${options.dcId} and ${offDcId}`,
    );
    const groups: Group[] = ['on', 'off'];
    const specs = groups.flatMap((group) =>
      Array.from({ length: DRIVERS_PER_DC + 1 }, (_, index) => ({ group, index })),
    );
    const made: BenchDriver[] = [];
    await inParallel(specs, 4, abort, async ({ group, index }) => {
      made.push(await makeDriver(group, index, index === DRIVERS_PER_DC ? HANDLER_PINGS : PINGS_PER_DRIVER));
    });
    const inProcess = (group: Group) =>
      made.find(
        (driver) => driver.group === group && driver.id.endsWith(`-${DRIVERS_PER_DC}`),
      ) as BenchDriver;
    const throughApi = made.filter((driver) => !driver.id.endsWith(`-${DRIVERS_PER_DC}`));

    // (a) Write units: every driver's day at once, each driver one ping at a time.
    log(`detection: ${throughApi.length} drivers x ${PINGS_PER_DRIVER} pings through the local runtime`);
    const before = await partitionReport(stack);
    if (!before) throw new Error('the runtime runs without the partition model (BENCH_PARTITIONS=off)');
    const started = performance.now();
    let errors = 0;
    const errorsByGroup: Record<Group, number> = { on: 0, off: 0 };
    const errorSamples: string[] = [];
    await inParallel(throughApi, throughApi.length, abort, async (driver) => {
      for (const ping of driver.pings) {
        const answer = await api.client.post(
          '/driver/location',
          JSON.stringify({
            timestamp: ping.timestamp,
            location: { latitude: ping.latitude, longitude: ping.longitude },
          }),
          driver.token,
        );
        if (answer.status !== 200) {
          errors++;
          errorsByGroup[driver.group]++;
          if (errorSamples.length < 3)
            errorSamples.push(`detection ${driver.group}: ${answer.status} ${JSON.stringify(answer.body)}`);
        }
      }
    });
    const pingSeconds = (performance.now() - started) / 1000;
    const after = await partitionReport(stack);
    if (!after) throw new Error('the partition model stopped answering');
    const units = await unitsByGroup(consumedBetween(before, after), throughApi, accountId, raw);
    const pingsPerGroup = DRIVERS_PER_DC * PINGS_PER_DRIVER;
    const perPing = (group: Group) => round(units[group].write_units / pingsPerGroup, 3);
    const extraWriteUnits = perPing('on') - perPing('off');
    const visits = await countVisits(api, throughApi);

    // (b) The handler alone, in-process, both days alternately.
    log(`detection: the ping handler in-process, ${HANDLER_PINGS} pings of each day, alternately`);
    const handler = await measureLocationHandler({
      stack,
      on: { token: inProcess('on').token, pings: inProcess('on').pings },
      off: { token: inProcess('off').token, pings: inProcess('off').pings },
      warmup: HANDLER_WARMUP,
      abort,
    });
    const handlerRatio = handler.on_ms.mean / handler.off_ms.mean;

    // (c) A 10-hour day read back through the history endpoint.
    log(
      `detection: a ${HISTORY_PINGS}-ping day read back through GET .../locations and .../track, ${HISTORY_READS} times`,
    );
    const history = await readBackDay(api, raw, accountId, options.dcId, runId, dayStart, abort);
    const worstPageMs = Math.max(...history.page_ms_median);
    const worstTrackPageMs = Math.max(...history.track.page_ms_median);

    return {
      description:
        'POST /driver/location on started routes, arrival detection on against off: write units per ping ' +
        '(partition model) and the handler in-process, in one run; then a 10-hour day read back through ' +
        'GET /dcs/{dc_id}/drivers/{driver_id}/locations and GET /dcs/{dc_id}/routes/{route_id}/track',
      errors: errors + history.errors + history.track.errors,
      note:
        `Two DCs of the demo account: ${options.dcId} (detection on, the default) and ${offDcId} (made for ` +
        `the run, settings arrival_detection false), ${DRIVERS_PER_DC} drivers each on started routes of like ` +
        `stops, each sending ${PINGS_PER_DRIVER} pings of the same day (bench/ping-day.ts: a stop every ` +
        `30 pings, 12 driving and 18 within 15 m of it), one at a time per driver, all drivers at once. ` +
        'Units are the partition model’s (the DynamoDB calls the service sent), attributed to a DC by the ' +
        'partition key (its drivers, traces, routes; an event by its route); the feed, deliveries and other ' +
        'work downstream of the events are not a ping’s and are left out.',
      pings_per_dc: pingsPerGroup,
      ping_seconds: round(pingSeconds, 1),
      ping_errors: errors,
      ping_errors_by_detection: errorsByGroup,
      ...(errorSamples.length ? { ping_error_samples: errorSamples } : {}),
      write_units_per_ping: { detection_on: perPing('on'), detection_off: perPing('off') },
      read_units_per_ping: {
        detection_on: round(units.on.read_units / pingsPerGroup, 3),
        detection_off: round(units.off.read_units / pingsPerGroup, 3),
      },
      write_units_by_kind: { detection_on: units.on.by_kind, detection_off: units.off.by_kind },
      visits_recorded: visits,
      handler_in_process: {
        ...handler,
        note:
          "the ping function's bundle (lib/bundling.ts) in a fresh node process with its deployed environment, " +
          'invoked warm with the event API Gateway sends it, one ping at a time, alternating a driver of the ' +
          'DC with detection and one of the DC without, each on its own started route; on DynamoDB Local itself',
      },
      history: {
        ...history,
        note:
          `a day of ${HISTORY_PINGS} trace points (one every 10 s for 10 hours, the items the ping handler ` +
          'writes) of a driver on a started route of the day’s stops, read through GET ' +
          '/dcs/{dc}/drivers/{id}/locations?from=&to= page by page (1,000 a page), then (track) through GET ' +
          `/dcs/{dc}/routes/{id}/track, each ${HISTORY_READS} times; page_ms_median is each page's median time ` +
          'over the reads',
      },
      checks: {
        detection_extra_write_units_per_ping: check(
          extraWriteUnits,
          '<=',
          WRITE_UNITS_TARGET,
          'write units per ping with detection on minus without (partition model, same run, same day of pings)',
        ),
        detection_handler_mean_ratio: check(
          handlerRatio,
          '<=',
          HANDLER_RATIO_TARGET,
          `mean in-process time of ${HANDLER_PINGS - HANDLER_WARMUP} pings with detection on / without, alternately in one process`,
        ),
        history_page_ms: check(
          worstPageMs,
          '<=',
          PAGE_MS_TARGET,
          `slowest page (median over ${HISTORY_READS} reads) of a ${HISTORY_PINGS}-ping day through GET .../locations`,
        ),
        track_page_ms: check(
          worstTrackPageMs,
          '<=',
          PAGE_MS_TARGET,
          `slowest page (median over ${HISTORY_READS} reads) of the same day through GET .../routes/{id}/track`,
        ),
      },
    };
  } finally {
    api.client.close();
    raw.destroy();
  }
}

/** The driver, a started route of its day's stops assigned to it. */
async function setUpDriver(
  api: Api,
  driver: BenchDriver,
  dayStart: number,
  stops: { latitude: number; longitude: number }[],
  abort: AbortSignal,
) {
  const dc = `/dcs/${encodeURIComponent(driver.dcId)}`;
  await api.expect(
    `creating driver ${driver.id}`,
    api.client.post(
      `${dc}/drivers`,
      JSON.stringify({ driver_id: driver.id, driver_name: 'Bench driver', login_token: driver.token }),
    ),
  );
  const route = sampleRoute(driver.routeId, {
    waypoints: stops.length,
    driverId: driver.id,
    startTime: dayStart,
    invoicesPerWaypoint: 1,
    itemsPerInvoice: 1,
  });
  route.waypoints.forEach((waypoint, index) => {
    waypoint.location = stops[index] as (typeof stops)[number];
  });
  const { txid } = (await api.expect(
    `importing ${driver.routeId}`,
    api.client.post(`${dc}/invoiced-routes`, JSON.stringify({ route })),
    202,
  )) as { txid: string };
  const deadline = Date.now() + IMPORT_TIMEOUT_MS;
  for (;;) {
    abort.throwIfAborted();
    const status = await api.client.get(`${dc}/routes/import-status/${encodeURIComponent(txid)}`);
    if (status.status === 200) break;
    if (status.status !== 202 || Date.now() > deadline)
      throw new Error(`import of ${driver.routeId}: ${status.status} ${JSON.stringify(status.body)}`);
    await sleep(100);
  }
  await api.expect(
    `starting ${driver.routeId}`,
    api.client.post(
      `/driver/routes/${encodeURIComponent(driver.routeId)}/start`,
      JSON.stringify({ timestamp: dayStart }),
      driver.token,
    ),
  );
}

interface GroupUnits {
  write_units: number;
  read_units: number;
  by_kind: Record<string, number>;
}

/**
 * The units of each DC's pings: partitions whose key names the DC (drivers, traces) or one of its routes,
 * and event items, by the route each names (their keys name only the account and the event).
 */
async function unitsByGroup(
  partitions: PartitionUsage[],
  drivers: BenchDriver[],
  accountId: string,
  raw: RawTable,
): Promise<Record<Group, GroupUnits>> {
  const empty = (): GroupUnits => ({ write_units: 0, read_units: 0, by_kind: {} });
  const result: Record<Group, GroupUnits> = { on: empty(), off: empty() };
  const routeGroup = new Map(drivers.map((driver) => [driver.routeId, driver.group]));
  const dcGroup = new Map(drivers.map((driver) => [driver.dcId, driver.group]));
  for (const partition of partitions) {
    const key = partition.partitionKey;
    let group: Group | undefined;
    if (key.startsWith(`EVENT#${accountId}/`)) {
      const { Items = [] } = await raw.db.send(
        new QueryCommand({
          TableName: raw.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': key },
        }),
      );
      group = routeGroup.get(String(Items[0]?.route_id));
    } else {
      for (const [routeId, of] of routeGroup) if (key.includes(routeId)) group = of;
      for (const [dcId, of] of dcGroup) if (!group && key.includes(`/${dcId}`)) group = of;
    }
    if (!group) continue;
    const kind = `${key.split('#')[0]}${partition.index ? ` (${partition.index})` : ''}`;
    result[group].write_units += partition.writeUnits;
    result[group].read_units += partition.readUnits;
    result[group].by_kind[kind] = round((result[group].by_kind[kind] ?? 0) + partition.writeUnits, 1);
  }
  return result;
}

/** The visits recorded on each DC's routes (the DC without detection must have none). */
async function countVisits(api: Api, drivers: BenchDriver[]): Promise<Record<Group, number>> {
  const counts: Record<Group, number> = { on: 0, off: 0 };
  for (const driver of drivers) {
    const data = (await api.expect(
      `waypoints of ${driver.routeId}`,
      api.client.get(
        `/dcs/${encodeURIComponent(driver.dcId)}/routes/${encodeURIComponent(driver.routeId)}/waypoints?limit=100`,
      ),
    )) as { waypoints: { visits: unknown[] }[] };
    counts[driver.group] += data.waypoints.reduce((total, waypoint) => total + waypoint.visits.length, 0);
  }
  return counts;
}

/**
 * A driver on a started route with a 10-hour day of trace points, read back page by page through the API: its
 * locations, then the route's track (whose first page also reads the route's waypoints and visits).
 */
async function readBackDay(
  api: Api,
  raw: RawTable,
  accountId: string,
  dcId: string,
  runId: string,
  dayStart: number,
  abort: AbortSignal,
) {
  const origin = { latitude: 41.5, longitude: -87.9 };
  const driver: BenchDriver = {
    group: 'on',
    dcId,
    id: `bench-history-${runId}`,
    token: `bench-history-${randomBytes(32).toString('base64url')}`,
    routeId: `bench-history-${runId}-route`,
    pings: dayPings(origin, dayStart, HISTORY_PINGS),
  };
  const stops = dayStops(origin, HISTORY_PINGS);
  await setUpDriver(api, driver, dayStart, stops, abort);
  await raw.putAll(
    driver.pings.map((ping) => tracePointItem({ accountId, dcId, driverId: driver.id }, ping)),
    8,
  );
  const dc = `/dcs/${encodeURIComponent(dcId)}`;
  const to = dayStart + (HISTORY_PINGS - 1) * PING_INTERVAL_MS;
  const locations = await readPages(
    api,
    `${dc}/drivers/${encodeURIComponent(driver.id)}/locations?from=${dayStart}&to=${to}`,
    abort,
  );
  const track = await readPages(api, `${dc}/routes/${encodeURIComponent(driver.routeId)}/track`, abort);
  return { ...locations, route_stops: stops.length, track };
}

/** Every page of a list of the day's pings, HISTORY_READS times: each page's median time over the reads. */
async function readPages(api: Api, base: string, abort: AbortSignal) {
  const byPage: number[][] = [];
  let errors = 0;
  let points = 0;
  for (let read = 0; read < HISTORY_READS; read++) {
    let token: string | null = null;
    let page = 0;
    points = 0;
    do {
      abort.throwIfAborted();
      const t0 = performance.now();
      const answer = await api.client.get(
        token ? `${base}${base.includes('?') ? '&' : '?'}next_token=${encodeURIComponent(token)}` : base,
      );
      const ms = performance.now() - t0;
      if (answer.status !== 200) {
        errors++;
        break;
      }
      const data = (answer.body as { data: { locations: unknown[]; next_token: string | null } }).data;
      points += data.locations.length;
      token = data.next_token;
      const times = byPage[page] ?? [];
      times.push(ms);
      byPage[page] = times;
      page++;
    } while (token);
    if (points !== HISTORY_PINGS) errors++;
  }
  return {
    points_read: points,
    pages: byPage.length,
    page_ms_median: byPage.map((times) => round(median(times))),
    page_ms: summarizeLatencies(byPage.flat()),
    errors,
  };
}
