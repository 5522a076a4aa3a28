import type { Stop, TracePoint } from '../../functions/domain/arrival-detection';
import type { LatLng } from '../../functions/domain/etas';
import { randomOf } from '../../functions/domain/optimizer/tour';

/**
 * Synthetic but realistic driver traces (test/fixtures/traces/): a driver moving between points at a speed,
 * waiting at places, pinging every `everyMs` with GPS error of up to `jitterMeters` in each direction, from a
 * seeded generator so that recording them again gives the same files (test/fixtures/traces/record.ts).
 */

const METERS_PER_DEGREE = 111_195;

/** `meters` north and east of `from`. */
export function offset(from: LatLng, north: number, east: number): LatLng {
  return {
    latitude: from.latitude + north / METERS_PER_DEGREE,
    longitude: from.longitude + east / (METERS_PER_DEGREE * Math.cos((from.latitude * Math.PI) / 180)),
  };
}

export type Leg =
  | { kind: 'drive'; to: LatLng; kmh: number }
  | { kind: 'wait'; seconds: number }
  /** No pings for a while (a tunnel), moving on as before. */
  | { kind: 'gap'; seconds: number };

export interface TraceSpec {
  start: LatLng;
  startAt: number;
  legs: Leg[];
  everyMs?: number;
  jitterMeters?: number;
  seed?: number;
}

/** The pings of a trace in time order, rounded as a phone reports them (7 decimals, whole ms). */
export function makeTrace(spec: TraceSpec): TracePoint[] {
  const { everyMs = 10_000, jitterMeters = 0, seed = 1 } = spec;
  const random = randomOf(seed);
  const points: TracePoint[] = [];
  let at = spec.startAt;
  let here = spec.start;
  const ping = (where: LatLng) => {
    const jittered = offset(where, (random() * 2 - 1) * jitterMeters, (random() * 2 - 1) * jitterMeters);
    points.push({
      timestamp: Math.round(at),
      latitude: Number(jittered.latitude.toFixed(7)),
      longitude: Number(jittered.longitude.toFixed(7)),
    });
  };
  ping(here);
  let silentUntil = -1;
  for (const leg of spec.legs) {
    if (leg.kind === 'gap') {
      silentUntil = at + leg.seconds * 1000;
      continue;
    }
    const seconds =
      leg.kind === 'wait'
        ? leg.seconds
        : Math.hypot(
            (leg.to.latitude - here.latitude) * METERS_PER_DEGREE,
            (leg.to.longitude - here.longitude) *
              METERS_PER_DEGREE *
              Math.cos((here.latitude * Math.PI) / 180),
          ) /
          (leg.kmh / 3.6);
    const from = here;
    const end = at + seconds * 1000;
    const legStart = at;
    while (at + everyMs <= end) {
      at += everyMs;
      const share = (at - legStart) / (end - legStart);
      const where =
        leg.kind === 'wait'
          ? from
          : {
              latitude: from.latitude + (leg.to.latitude - from.latitude) * share,
              longitude: from.longitude + (leg.to.longitude - from.longitude) * share,
            };
      if (at > silentUntil) ping(where);
    }
    if (leg.kind === 'drive') here = leg.to;
    at = end;
  }
  return points;
}

/** A recorded trace: its stops, its pings as the app took them, and in the order they were delivered. */
export interface RecordedTrace {
  description: string;
  stops: Stop[];
  points: TracePoint[];
  /** Indexes into `points`, in the order the service received them. */
  deliveryOrder: number[];
}
