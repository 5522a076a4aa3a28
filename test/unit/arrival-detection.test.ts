import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type ArrivalSettings,
  DEFAULT_ARRIVAL_SETTINGS,
  distanceMeters,
  indexStops,
  keptVisits,
  mayChangeVisits,
  mayMeetDroppedVisits,
  replayVisits,
  type TracePoint,
  type Visit,
  type VisitChange,
  visitChanges,
  windowAround,
  withChanges,
} from '../../functions/domain/arrival-detection';
import type { RecordedTrace } from '../support/synthetic-traces';

const trace = (name: string): RecordedTrace =>
  JSON.parse(readFileSync(new URL(`../fixtures/traces/${name}.json`, import.meta.url), 'utf8'));

/**
 * The service's way, ping by ping in delivery order: each ping stored, then, when it may change anything, the
 * stored pings of its window replayed against the visits the driver's state keeps (the open ones and the
 * latest closed ones), and against the route's whole record of visits when what it found reaches back past them.
 */
function detectAsDelivered(recorded: RecordedTrace, settings: ArrivalSettings = DEFAULT_ARRIVAL_SETTINGS) {
  const index = indexStops(recorded.stops);
  const stored: TracePoint[] = [];
  let kept: Visit[] = [];
  let known: Visit[] = [];
  const changes: VisitChange[] = [];
  let windowsRead = 0;
  let recordsRead = 0;
  for (const position of recorded.deliveryOrder) {
    const ping = recorded.points[position] as TracePoint;
    stored.push(ping);
    if (!mayChangeVisits(ping, index, settings, kept)) continue;
    windowsRead++;
    const window = windowOf(stored, ping, settings);
    let found = visitChanges(window, index, settings, kept);
    if (mayMeetDroppedVisits(found, kept)) {
      recordsRead++;
      found = visitChanges(window, index, settings, known);
    }
    changes.push(...found);
    known = withChanges(known, found);
    kept = keptVisits(withChanges(kept, found));
  }
  return { changes, known, kept, windowsRead, recordsRead };
}

function windowOf(stored: TracePoint[], ping: TracePoint, settings: ArrivalSettings) {
  const { from, to } = windowAround(ping.timestamp, settings);
  return stored.filter((point) => point.timestamp >= from && point.timestamp <= to);
}

const firstWithin = (points: TracePoint[], stop: RecordedTrace['stops'][number], meters: number, after = 0) =>
  points.find((point) => point.timestamp > after && distanceMeters(point, stop.location) <= meters);

/** Each change's kind and waypoint, in order: what a visit looks like without its times. */
const kindsOf = (changes: readonly VisitChange[]) =>
  changes.map((change) => [change.kind, change.waypointId]);
/** The changes of one visit to `waypointId`. */
const oneVisitTo = (waypointId: string) => [
  ['arrived', waypointId],
  ['departed', waypointId],
];

describe('arrival detection on recorded traces', () => {
  it('a stop: arrived at the first ping within 100 m, departed at the first one beyond 150 m', () => {
    const recorded = trace('stop');
    const a = recorded.stops[0] as RecordedTrace['stops'][number];
    const { changes, windowsRead } = detectAsDelivered(recorded);
    const arrival = firstWithin(recorded.points, a, 100) as TracePoint;
    const departure = recorded.points.find(
      (point) => point.timestamp > arrival.timestamp + 60_000 && distanceMeters(point, a.location) > 150,
    ) as TracePoint;
    expect(changes).toEqual([
      { kind: 'arrived', waypointId: 'wp-a', at: arrival.timestamp },
      { kind: 'departed', waypointId: 'wp-a', arrivedAt: arrival.timestamp, at: departure.timestamp },
    ]);
    // Pings far from every stop read no window.
    expect(windowsRead).toBeLessThan(recorded.points.length / 2);
  });

  it('a pass at 50 km/h 30 m from a stop triggers nothing', () => {
    const recorded = trace('pass-by');
    const near = recorded.points.filter(
      (point) => distanceMeters(point, recorded.stops[0]?.location as TracePoint) <= 100,
    );
    expect(near.length).toBeGreaterThan(0);
    expect(detectAsDelivered(recorded).changes).toEqual([]);
  });

  it('GPS error of ±25 m around a parked driver gives one arrival and one departure', () => {
    const recorded = trace('jitter');
    const { changes } = detectAsDelivered(recorded);
    expect(kindsOf(changes)).toEqual(oneVisitTo('wp-a'));
    const [arrived, departed] = changes as [VisitChange, VisitChange];
    expect(departed.at - arrived.at).toBeGreaterThanOrEqual(7 * 60_000);
  });

  it('a tunnel gap on the way fires nothing, and a gap while at the stop keeps one visit', () => {
    const recorded = trace('tunnel-gap');
    const { changes } = detectAsDelivered(recorded);
    expect(kindsOf(changes)).toEqual(oneVisitTo('wp-b'));
  });

  it('pings delivered out of order and late give the same visits, each raised once, in time order', () => {
    const recorded = trace('out-of-order');
    expect(recorded.deliveryOrder).not.toEqual([...recorded.deliveryOrder].sort((a, b) => a - b));
    const asDelivered = detectAsDelivered(recorded);
    const inOrder = detectAsDelivered({
      ...recorded,
      deliveryOrder: recorded.points.map((_, index) => index),
    });
    const kinds = [...oneVisitTo('wp-a'), ...oneVisitTo('wp-c')];
    expect(kindsOf(inOrder.changes)).toEqual(kinds);
    const sorted = [...asDelivered.changes].sort((a, b) => a.at - b.at);
    expect(kindsOf(sorted)).toEqual(kinds);
    // A change is raised with the pings at hand: a ping delivered after it (here up to 6 minutes late, in
    // batches of 70 s) does not move it, so its time is off by at most that much.
    sorted.forEach((change, index) => {
      const expected = inOrder.changes[index] as VisitChange;
      expect(change.at).toBeGreaterThanOrEqual(expected.at);
      expect(change.at - expected.at).toBeLessThanOrEqual(7 * 60_000 + 10_000);
    });
    expect(asDelivered.known.every((visit) => (visit.departedAt as number) > visit.arrivedAt)).toBe(true);
  });

  it('pings reversed in small batches give the visits of the pings in order', () => {
    const recorded = trace('stop');
    const order = recorded.points.map((_, index) => index);
    for (let start = 0; start < order.length; start += 3)
      order.splice(start, 3, ...order.slice(start, start + 3).reverse());
    const asDelivered = detectAsDelivered({ ...recorded, deliveryOrder: order });
    const inOrder = detectAsDelivered(recorded);
    expect(asDelivered.known.map((visit) => visit.waypointId)).toEqual(['wp-a']);
    expect(asDelivered.known[0]?.arrivedAt).toBe(inOrder.known[0]?.arrivedAt);
    expect(
      (asDelivered.known[0]?.departedAt as number) - (inOrder.known[0]?.departedAt as number),
    ).toBeLessThanOrEqual(20_000);
  });

  it('a stop visited twice has two visits, each arrived and departed once, in time order', () => {
    const recorded = trace('visited-twice');
    const { changes, known } = detectAsDelivered(recorded);
    expect(kindsOf(changes)).toEqual([...oneVisitTo('wp-a'), ...oneVisitTo('wp-b'), ...oneVisitTo('wp-a')]);
    expect(changes.map((change) => change.at)).toEqual(
      [...changes.map((change) => change.at)].sort((a, b) => a - b),
    );
    expect(known.filter((visit) => visit.waypointId === 'wp-a')).toHaveLength(2);
  });

  it('pings of a stay delivered again after the driver left two more stops raise it no second time', () => {
    const recorded = trace('redelivered');
    const { changes, known, kept, recordsRead } = detectAsDelivered(recorded);
    expect(kindsOf(changes)).toEqual([...oneVisitTo('wp-a'), ...oneVisitTo('wp-b'), ...oneVisitTo('wp-c')]);
    expect(kept.map((visit) => visit.waypointId)).toEqual(['wp-b', 'wp-c']);
    expect(recordsRead).toBeGreaterThan(0);
    // The last ping's window starts within the 13 minutes at A: against the kept visits alone, its stay there
    // looks new (an arrival other than the recorded one); the record knows it.
    const last = recorded.points[recorded.deliveryOrder.at(-1) as number] as TracePoint;
    const window = windowOf(recorded.points, last, DEFAULT_ARRIVAL_SETTINGS);
    const index = indexStops(recorded.stops);
    const againstKept = visitChanges(window, index, DEFAULT_ARRIVAL_SETTINGS, kept);
    expect(kindsOf(againstKept)).toContainEqual(['arrived', 'wp-a']);
    expect(againstKept[0]?.at).not.toBe(known[0]?.arrivedAt);
    expect(mayMeetDroppedVisits(againstKept, kept)).toBe(true);
    expect(visitChanges(window, index, DEFAULT_ARRIVAL_SETTINGS, known)).toEqual([]);
  });

  it('pings in order never need the record of visits beyond the kept ones', () => {
    for (const name of ['stop', 'jitter', 'tunnel-gap', 'visited-twice', 'redelivered']) {
      const recorded = trace(name);
      const inOrder = recorded.points.map((_, index) => index);
      expect(detectAsDelivered({ ...recorded, deliveryOrder: inOrder }).recordsRead, name).toBe(0);
    }
  });

  it('the settings move the radius and dwell: a 30 m pass arrives with a long radius and no dwell to speak of', () => {
    const recorded = trace('pass-by');
    const { changes } = detectAsDelivered(recorded, {
      radiusMeters: 300,
      dwellSeconds: 20,
      marginMeters: 50,
    });
    expect(kindsOf(changes)).toEqual(oneVisitTo('wp-a'));
    expect(
      detectAsDelivered(trace('stop'), { ...DEFAULT_ARRIVAL_SETTINGS, dwellSeconds: 600 }).changes,
    ).toEqual([]);
  });
});

describe('visitChanges', () => {
  const stops = [
    { id: 'near', location: { latitude: 50, longitude: 8 } },
    { id: 'next-door', location: { latitude: 50.0004, longitude: 8 } }, // 44 m north
  ];
  const index = indexStops(stops);
  const at = (seconds: number, north = 0): TracePoint => ({
    timestamp: 1_000_000 + seconds * 1000,
    latitude: 50 + north / 111_195,
    longitude: 8,
  });

  it('never raises a recorded arrival again, and leaves its time as recorded', () => {
    const points = [0, 10, 20, 30, 40, 50, 60, 70].map((seconds) => at(seconds));
    const known: Visit[] = [{ waypointId: 'near', arrivedAt: at(20).timestamp }];
    expect(visitChanges(points, index, DEFAULT_ARRIVAL_SETTINGS, known)).toEqual([]);
  });

  it('departs a visit that was open before the window began', () => {
    const known: Visit[] = [{ waypointId: 'near', arrivedAt: 0 }];
    const changes = visitChanges([at(0), at(10, 200)], index, DEFAULT_ARRIVAL_SETTINGS, known);
    expect(changes).toEqual([
      { kind: 'departed', waypointId: 'near', arrivedAt: 0, at: at(10, 200).timestamp },
    ]);
  });

  it('stays with the candidate while jitter moves the nearest stop to its neighbour', () => {
    const points = [0, 10, 20, 30, 40, 50, 60].map((seconds, i) => at(seconds, i % 2 ? 25 : 0));
    expect(replayVisits(points, index, DEFAULT_ARRIVAL_SETTINGS)).toEqual([
      { waypointId: 'near', arrivedAt: at(0).timestamp },
    ]);
  });

  it('two pings within the radius too far apart make no stay', () => {
    expect(replayVisits([at(0), at(130), at(260)], index, DEFAULT_ARRIVAL_SETTINGS)).toEqual([]);
  });

  it('the state keeps the open visits and the latest two closed ones', () => {
    const closed = (arrivedAt: number): Visit => ({
      waypointId: 'near',
      arrivedAt,
      departedAt: arrivedAt + 5,
    });
    const open: Visit = { waypointId: 'next-door', arrivedAt: 100 };
    const visits = [closed(10), open, closed(40), closed(20), closed(30)];
    expect(keptVisits(visits)).toEqual([open, closed(40), closed(30)]);
    // Only a change reaching back to the oldest closed visit kept may meet one left out.
    const kept = keptVisits(visits);
    const arrivedAt = (at: number): VisitChange => ({ kind: 'arrived', waypointId: 'near', at });
    expect(mayMeetDroppedVisits([arrivedAt(31)], kept)).toBe(false);
    expect(mayMeetDroppedVisits([arrivedAt(31), arrivedAt(30)], kept)).toBe(true);
    expect(mayMeetDroppedVisits([arrivedAt(1)], [closed(10), open])).toBe(false);
  });

  it('a ping far from every stop with no visit open cannot change anything', () => {
    expect(mayChangeVisits(at(0, 5000), index, DEFAULT_ARRIVAL_SETTINGS, [])).toBe(false);
    expect(mayChangeVisits(at(0, 30), index, DEFAULT_ARRIVAL_SETTINGS, [])).toBe(true);
    const open: Visit[] = [{ waypointId: 'near', arrivedAt: 0 }];
    expect(mayChangeVisits(at(10, 120), index, DEFAULT_ARRIVAL_SETTINGS, open)).toBe(false);
    expect(mayChangeVisits(at(10, 200), index, DEFAULT_ARRIVAL_SETTINGS, open)).toBe(true);
  });
});
