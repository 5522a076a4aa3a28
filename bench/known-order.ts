import { computeEtas, type LatLng } from '../functions/domain/etas';
import type { StopToVisit } from '../functions/domain/optimizer/route-problem';
import { randomOf } from '../functions/domain/optimizer/tour';

export interface KnownOrderOptions {
  /** How many stops. */
  n: number;
  seed: number;
  departAt: number;
  origin: LatLng;
  /** How far the places spread around the origin: latitude and longitude, in degrees, from one side to the other. */
  spread: LatLng;
  serviceTimeMinutes: number;
  /** Every windowEvery-th stop, from the first, gets a window. */
  windowEvery: number;
  /** A window's half width, around its stop's ETA on the known order. */
  halfWindowMinutes: number;
}

/**
 * Stops whose time windows a known order meets, for the optimizer's bench (bench/route-optimization.ts) and
 * test (test/unit/route-optimizer.test.ts): `n` places drawn around the origin, every `windowEvery`-th one
 * with a window of `halfWindowMinutes` either side of its ETA on the order they were drawn in. Returned in
 * that order: give them to the optimizer otherwise (reversed), so that it does not start from it.
 */
export function knownOrderStops(options: KnownOrderOptions): StopToVisit[] {
  const { n, seed, departAt, origin, spread, serviceTimeMinutes, windowEvery, halfWindowMinutes } = options;
  const random = randomOf(seed);
  const places = Array.from({ length: n }, () => ({
    latitude: origin.latitude + (random() - 0.5) * spread.latitude,
    longitude: origin.longitude + (random() - 0.5) * spread.longitude,
  }));
  const etas = computeEtas({
    departAt,
    origin,
    stops: places.map((location, index) => ({
      id: String(index),
      location,
      serviceTimeMinutes,
      timeWindows: [],
    })),
  });
  const half = halfWindowMinutes * 60_000;
  return places.map((location, index) => {
    const eta = etas[index]?.eta as number;
    return {
      location,
      serviceTimeMinutes,
      timeWindows: index % windowEvery === 0 ? [{ start: eta - half, end: eta + half }] : [],
      locked: false,
    };
  });
}
