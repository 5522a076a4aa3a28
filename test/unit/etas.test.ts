import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { WaypointRow } from '../../functions/data/route-rows';
import {
  completionEstimate,
  computeEtas,
  DEFAULT_SPEED_KMH,
  type EtaInput,
  type EtaStop,
  haversineKm,
  type LatLng,
  ROAD_FACTOR,
  type StopEta,
  travelMillis,
} from '../../functions/domain/etas';
import {
  ETA_EVENT_BYTES_PER_SECOND,
  ETA_EVENT_UNPACED_BYTES,
  etaEventPaceAllows,
  plannedEtas,
} from '../../functions/domain/route-etas';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.UTC(2025, 5, 2, 6, 0); // a Monday, 06:00 UTC

// ---- Generators ----

const anywhere: fc.Arbitrary<LatLng> = fc.record({
  latitude: fc.double({ min: -90, max: 90, noNaN: true }),
  longitude: fc.double({ min: -180, max: 180, noNaN: true }),
});

/** Within ~0.5° of a centre (clamped to valid ranges), so legs take hours, not days, and windows matter. */
const near = (centre: LatLng): fc.Arbitrary<LatLng> =>
  fc
    .record({
      dLat: fc.double({ min: -0.5, max: 0.5, noNaN: true }),
      dLng: fc.double({ min: -0.5, max: 0.5, noNaN: true }),
    })
    .map(({ dLat, dLng }) => ({
      latitude: Math.max(-90, Math.min(90, centre.latitude + dLat)),
      longitude: Math.max(-180, Math.min(180, centre.longitude + dLng)),
    }));

/** Windows placed around the route's day: some already closed at departure, most opening within three days. */
const window = (departAt: number) =>
  fc
    .record({
      offset: fc.integer({ min: -12 * HOUR, max: 72 * HOUR }),
      length: fc.integer({ min: 1, max: 8 * HOUR }),
    })
    .map(({ offset, length }) => ({ start: departAt + offset, end: departAt + offset + length }));

const stopsFor = (departAt: number, centre: LatLng) =>
  fc
    .array(
      fc.record({
        // Mostly local stops; a few anywhere on earth, and some in the very same place as the previous stop.
        where: fc.oneof(
          { weight: 6, arbitrary: near(centre) },
          { weight: 1, arbitrary: anywhere },
          { weight: 2, arbitrary: fc.constant('same' as const) },
        ),
        serviceTimeMinutes: fc.integer({ min: 0, max: 120 }),
        timeWindows: fc.array(window(departAt), { maxLength: 3 }),
      }),
      { maxLength: 30 },
    )
    .map((drafts) => {
      const stops: EtaStop[] = [];
      drafts.forEach(({ where, ...rest }, i) => {
        const previous = stops.at(-1)?.location ?? centre;
        stops.push({ id: `wp-${i}`, location: where === 'same' ? { ...previous } : where, ...rest });
      });
      return stops;
    });

const etaInput: fc.Arbitrary<EtaInput> = fc
  .record({
    departAt: fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) }),
    centre: anywhere,
    speedKmh: fc.option(fc.double({ min: 5, max: 120, noNaN: true }), { nil: undefined }),
  })
  .chain(({ departAt, centre, speedKmh }) =>
    fc.record({
      departAt: fc.constant(departAt),
      origin: fc.oneof(near(centre), fc.constant(centre)),
      stops: stopsFor(departAt, centre),
      speedKmh: fc.constant(speedKmh),
    }),
  );

// ---- Helpers for the properties ----

const speedOf = (input: EtaInput) => input.speedKmh ?? DEFAULT_SPEED_KMH;
const previousLocation = (input: EtaInput, i: number) =>
  i === 0 ? input.origin : (input.stops[i - 1] as EtaStop).location;
const previousDeparture = (input: EtaInput, etas: StopEta[], i: number) =>
  i === 0 ? input.departAt : (etas[i - 1] as StopEta).departure;
const inside = (t: number, w: { start: number; end: number }) => w.start <= t && t < w.end;

/** Runs `check` on every stop with its input, its ETA, and the results before it. */
function eachStop(
  property: (input: EtaInput, stop: EtaStop, eta: StopEta, i: number, etas: StopEta[]) => void,
) {
  fc.assert(
    fc.property(etaInput, (input) => {
      const etas = computeEtas(input);
      expect(etas).toHaveLength(input.stops.length);
      input.stops.forEach((stop, i) => {
        property(input, stop, etas[i] as StopEta, i, etas);
      });
    }),
    { numRuns: 300 },
  );
}

describe('computeEtas properties', () => {
  it('keeps the route order and gives whole-millisecond times', () => {
    eachStop((_input, stop, eta) => {
      expect(eta.waypointId).toBe(stop.id);
      for (const t of [eta.arrival, eta.eta, eta.departure]) expect(Number.isInteger(t)).toBe(true);
    });
  });

  it('never goes back in time: departAt <= arrival <= eta <= departure <= next eta', () => {
    eachStop((input, _stop, eta, i, etas) => {
      expect(eta.arrival).toBeGreaterThanOrEqual(previousDeparture(input, etas, i));
      expect(eta.eta).toBeGreaterThanOrEqual(eta.arrival);
      expect(eta.departure).toBeGreaterThanOrEqual(eta.eta);
      const next = etas[i + 1];
      if (next) expect(next.eta).toBeGreaterThanOrEqual(eta.departure);
    });
  });

  it('waits for the earliest window still to open, and otherwise starts service on arrival', () => {
    eachStop((_input, stop, eta) => {
      const windows = stop.timeWindows;
      const upcoming = windows.filter((w) => w.start > eta.arrival).map((w) => w.start);
      const waiting = !windows.some((w) => inside(eta.arrival, w)) && upcoming.length > 0;
      if (waiting) {
        expect(eta.eta).toBe(Math.min(...upcoming));
        // Waiting lands exactly on a window's opening, so service starts inside that window.
        expect(windows.some((w) => inside(eta.eta, w))).toBe(true);
      } else {
        // No windows, inside one, or late after all of them: no waiting.
        expect(eta.eta).toBe(eta.arrival);
      }
      // Service never starts before arrival, nor before a window that was open or opened while waiting.
      expect(eta.eta).toBeGreaterThanOrEqual(eta.arrival);
      for (const w of windows) if (inside(eta.eta, w)) expect(eta.eta).toBeGreaterThanOrEqual(w.start);
    });
  });

  it('includes service time and travel time exactly', () => {
    eachStop((input, stop, eta, i, etas) => {
      expect(eta.departure - eta.eta).toBe(stop.serviceTimeMinutes * MINUTE);
      const travel = travelMillis(previousLocation(input, i), stop.location, speedOf(input));
      expect(eta.arrival - previousDeparture(input, etas, i)).toBe(travel);
      if (eta.eta === eta.arrival) expect(eta.eta - previousDeparture(input, etas, i)).toBe(travel);
    });
  });

  it('starts a stop in the same place and without windows right when the previous one departs', () => {
    const sameSpot = fc
      .record({
        departAt: fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) }),
        origin: anywhere,
        spot: anywhere,
        services: fc.array(fc.integer({ min: 0, max: 120 }), { minLength: 2, maxLength: 30 }),
      })
      .map(({ departAt, origin, spot, services }) => ({
        departAt,
        origin,
        stops: services.map((serviceTimeMinutes, i) => ({
          id: `wp-${i}`,
          location: { ...spot },
          serviceTimeMinutes,
          timeWindows: [],
        })),
      }));
    fc.assert(
      fc.property(sameSpot, (input) => {
        const etas = computeEtas(input);
        for (let i = 1; i < etas.length; i++) {
          expect((etas[i] as StopEta).eta).toBe((etas[i - 1] as StopEta).departure);
        }
      }),
    );
    // The general generator repeats locations too; check the same thing there.
    eachStop((input, stop, eta, i, etas) => {
      if (i === 0 || stop.timeWindows.length > 0) return;
      const prev = (input.stops[i - 1] as EtaStop).location;
      if (prev.latitude === stop.location.latitude && prev.longitude === stop.location.longitude) {
        expect(eta.eta).toBe((etas[i - 1] as StopEta).departure);
      }
    });
  });
});

describe('distance and travel time', () => {
  it('haversine is symmetric, zero for the same place, and at most half the earth round', () => {
    fc.assert(
      fc.property(anywhere, anywhere, (a, b) => {
        expect(haversineKm(a, b)).toBeCloseTo(haversineKm(b, a), 9);
        expect(haversineKm(a, a)).toBe(0);
        expect(haversineKm(a, b)).toBeGreaterThanOrEqual(0);
        expect(haversineKm(a, b)).toBeLessThanOrEqual(Math.PI * 6371.0088 + 1e-6);
      }),
    );
  });

  it('stays finite for near-antipodal points, where rounding pushes the haversine term above 1', () => {
    // Found by search: here the term under the square root is 1.0000000000000004, and asin(sqrt of it) is NaN.
    const a: LatLng = { latitude: 49.85854084443696, longitude: -143.9693472906827 };
    const b: LatLng = { latitude: -49.85854103145612, longitude: 36.03065270931731 };
    expect(haversineKm(a, b)).toBeCloseTo(Math.PI * 6371.0088, 2);
    expect(Number.isInteger(travelMillis(a, b, 30))).toBe(true);
  });

  it('travel time is distance x road factor / speed, rounded to whole milliseconds', () => {
    fc.assert(
      fc.property(anywhere, anywhere, fc.double({ min: 1, max: 200, noNaN: true }), (a, b, speed) => {
        const exact = ((haversineKm(a, b) * ROAD_FACTOR) / speed) * HOUR;
        const travel = travelMillis(a, b, speed);
        expect(Number.isInteger(travel)).toBe(true);
        expect(Math.abs(travel - exact)).toBeLessThanOrEqual(0.5);
      }),
    );
  });
});

describe('examples', () => {
  const berlin: LatLng = { latitude: 52, longitude: 13 };
  const oneDegreeNorth: LatLng = { latitude: 53, longitude: 13 };
  // 1° of latitude = 6371.0088 km x π/180 = 111.195 km; x 1.3 / 30 km/h = 4.81845 h = 17,346,433 ms.
  const oneDegreeMs = 17_346_433;
  // At 60 km/h: half of the unrounded 17,346,432.52 ms, i.e. 8,673,216.26 -> 8,673,216 ms.
  const oneDegreeAt60Ms = 8_673_216;

  const stop = (
    id: string,
    location: LatLng,
    serviceTimeMinutes = 0,
    timeWindows: EtaStop['timeWindows'] = [],
  ) => ({
    id,
    location,
    serviceTimeMinutes,
    timeWindows,
  });

  it('one degree of latitude at the default 30 km/h takes about 4.82 hours', () => {
    expect(DEFAULT_SPEED_KMH).toBe(30);
    expect(ROAD_FACTOR).toBe(1.3);
    expect(haversineKm(berlin, oneDegreeNorth)).toBeCloseTo(111.195, 3);
    expect(travelMillis(berlin, oneDegreeNorth, 30)).toBe(oneDegreeMs);
    expect(travelMillis(berlin, oneDegreeNorth, 30) / HOUR).toBeCloseTo(4.818, 3);
    // Twice the speed, half the time.
    expect(travelMillis(berlin, oneDegreeNorth, 60)).toBe(oneDegreeAt60Ms);
  });

  it('chains travel and service, with the default speed', () => {
    const etas = computeEtas({
      departAt: T0,
      origin: berlin,
      stops: [stop('a', oneDegreeNorth, 10), stop('b', berlin, 5)],
    });
    expect(etas).toEqual([
      {
        waypointId: 'a',
        arrival: T0 + oneDegreeMs,
        eta: T0 + oneDegreeMs,
        departure: T0 + oneDegreeMs + 10 * MINUTE,
      },
      {
        waypointId: 'b',
        arrival: T0 + 2 * oneDegreeMs + 10 * MINUTE,
        eta: T0 + 2 * oneDegreeMs + 10 * MINUTE,
        departure: T0 + 2 * oneDegreeMs + 15 * MINUTE,
      },
    ]);
  });

  it('waits for the earliest window to open, serves inside an open one, and does not wait when late', () => {
    const arrival = T0 + oneDegreeMs; // 10:49:06 UTC
    const at = (h: number, m = 0) => Date.UTC(2025, 5, 2, h, m);
    const etaWith = (timeWindows: EtaStop['timeWindows']) =>
      (
        computeEtas({
          departAt: T0,
          origin: berlin,
          stops: [stop('a', oneDegreeNorth, 20, timeWindows)],
        })[0] as StopEta
      ).eta;

    // Windows out of order: the 12:00 one is the earliest still to open.
    expect(
      etaWith([
        { start: at(14), end: at(16) },
        { start: at(12), end: at(13) },
      ]),
    ).toBe(at(12));
    // Arrival inside a window: no waiting, even though another opens later.
    expect(
      etaWith([
        { start: at(10), end: at(11) },
        { start: at(12), end: at(13) },
      ]),
    ).toBe(arrival);
    // A window's end is exclusive: arriving just as it closes means waiting for the next.
    expect(
      etaWith([
        { start: at(9), end: arrival },
        { start: at(12), end: at(13) },
      ]),
    ).toBe(at(12));
    // Every window closed already: late, served on arrival.
    expect(etaWith([{ start: at(8), end: at(9) }])).toBe(arrival);

    const [waited] = computeEtas({
      departAt: T0,
      origin: berlin,
      stops: [stop('a', oneDegreeNorth, 20, [{ start: at(12), end: at(13) }])],
    });
    expect(waited).toEqual({ waypointId: 'a', arrival, eta: at(12), departure: at(12, 20) });
  });

  it('estimates completion from the last departure, plus travel to the end location when given', () => {
    const stops = [stop('a', oneDegreeNorth, 10), stop('b', oneDegreeNorth, 30)];
    const etas = computeEtas({ departAt: T0, origin: berlin, stops, speedKmh: 60 });
    const lastDeparture = T0 + oneDegreeAt60Ms + 40 * MINUTE;
    expect(etas.at(-1)?.departure).toBe(lastDeparture);

    expect(completionEstimate(etas, stops, undefined, 60)).toBe(lastDeparture);
    expect(completionEstimate(etas, stops, berlin, 60)).toBe(lastDeparture + oneDegreeAt60Ms);
    // Default speed back to the end.
    expect(completionEstimate(etas, stops, berlin)).toBe(lastDeparture + oneDegreeMs);
    // The last stop is found by id, so the whole route may be passed with ETAs for the remaining stops only.
    const route = [stop('x', berlin), stop('y', oneDegreeNorth)];
    const remaining = computeEtas({ departAt: T0, origin: berlin, stops: route.slice(1) });
    expect(completionEstimate(remaining, route, berlin)).toBe(
      (remaining[0] as StopEta).departure + oneDegreeMs,
    );
    expect(() => completionEstimate(remaining, [stop('x', berlin)], berlin)).toThrow(/No stop y/);
    expect(completionEstimate([], [], berlin)).toBeUndefined();
    expect(completionEstimate([], stops, undefined)).toBeUndefined();
  });

  it('gives no ETAs for no stops', () => {
    expect(computeEtas({ departAt: T0, origin: berlin, stops: [] })).toEqual([]);
  });

  it('refuses a speed that is not a positive finite number', () => {
    const input = { departAt: T0, origin: berlin, stops: [stop('a', oneDegreeNorth)] };
    for (const speedKmh of [0, -30, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => computeEtas({ ...input, speedKmh })).toThrow(RangeError);
      expect(() => travelMillis(berlin, oneDegreeNorth, speedKmh)).toThrow(RangeError);
      expect(() => completionEstimate([], [], undefined, speedKmh)).toThrow(RangeError);
    }
    // Even with no stops to travel to, a bad speed is a caller bug worth reporting.
    expect(() => computeEtas({ departAt: T0, origin: berlin, stops: [], speedKmh: 0 })).toThrow(RangeError);
  });
});

describe('planned ETAs of a route with cancelled waypoints', () => {
  const here: LatLng = { latitude: 41.88, longitude: -87.63 };
  const north: LatLng = { latitude: 42.88, longitude: -87.63 };
  const row = (id: string, sequence: number, location: LatLng): WaypointRow => ({
    id,
    sequence,
    location,
    serviceTimeMinutes: 10,
    timeWindows: [],
    invoiceIds: [],
  });

  it('are indexed by sequence, null at the sequences the cancelled waypoints left unused', () => {
    const planned = plannedEtas({ startTime: T0 }, [row('a', 0, here), row('d', 3, north)], undefined);
    const [first, second] = computeEtas({
      departAt: T0,
      origin: here,
      stops: [
        { id: 'a', location: here, serviceTimeMinutes: 10, timeWindows: [] },
        { id: 'd', location: north, serviceTimeMinutes: 10, timeWindows: [] },
      ],
    });
    expect(planned.etas).toEqual([first?.eta, null, null, second?.eta]);
    expect(planned.emitted).toEqual(planned.etas);
  });
});

describe('the pace of a route’s ROUTE_ETAS_CHANGED', () => {
  const stored = (emittedAt: number | undefined, emittedBytes: number | undefined) => ({
    etas: [],
    completion: null,
    emitted: [],
    computedAt: T0,
    version: 1,
    emittedAt,
    emittedBytes,
    approached: [],
  });

  it('holds nothing back after a small event, nor before the first', () => {
    expect(etaEventPaceAllows(undefined, T0)).toBe(true);
    expect(etaEventPaceAllows(stored(undefined, undefined), T0)).toBe(true);
    expect(etaEventPaceAllows(stored(T0, ETA_EVENT_UNPACED_BYTES), T0 + 1)).toBe(true);
  });

  it('after a large event, waits until the route averages ETA_EVENT_BYTES_PER_SECOND', () => {
    const bytes = 120 * 1024; // a 2,000-stop route's
    const wait = (bytes / ETA_EVENT_BYTES_PER_SECOND) * 1000;
    expect(wait).toBe(120_000);
    expect(etaEventPaceAllows(stored(T0, bytes), T0 + wait - 1)).toBe(false);
    expect(etaEventPaceAllows(stored(T0, bytes), T0 + wait)).toBe(true);
  });
});
