/**
 * A driver's working day as the driver app reports it, for the detection measurements of driver_location
 * (bench/detection.ts): stops 1 km apart on a line, driven at 30 km/h (a ping every 10 s, 12 pings between
 * stops), 3 minutes at each stop (18 pings within 15 m of it, jittered as GPS is), then on to the next one.
 * 30 pings a stop: a 10-hour day (3,600 pings) has 120 stops, a little denser than a real route's 60 to 100,
 * so detection works at least as often per ping as on a real day.
 */

export interface DayPing {
  timestamp: number;
  latitude: number;
  longitude: number;
}

export const PING_INTERVAL_MS = 10_000;
const DRIVING_PINGS = 12;
const DWELL_PINGS = 18;
export const PINGS_PER_STOP = DRIVING_PINGS + DWELL_PINGS;
const STOP_SPACING_M = 1000;
const JITTER_M = 15;
const METERS_PER_DEGREE = 111_195;

/** The stops of a day of `pings` pings on the line that starts at `origin` and runs east. */
export function dayStops(origin: { latitude: number; longitude: number }, pings: number) {
  const count = Math.ceil(pings / PINGS_PER_STOP) + 1;
  const degreesEast = STOP_SPACING_M / (METERS_PER_DEGREE * Math.cos((origin.latitude * Math.PI) / 180));
  return Array.from({ length: count }, (_, index) => ({
    latitude: origin.latitude,
    longitude: round6(origin.longitude + (index + 1) * degreesEast),
  }));
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

/** A deterministic jitter in -1..1 per ping and axis (a fixed hash: every run sends the same day). */
const jitter = (n: number, axis: number) =>
  ((Math.imul(n * 2 + axis, 2_654_435_761) >>> 0) / 2 ** 32) * 2 - 1;

/**
 * The day's pings from `start`, one every 10 s: driving from the origin (or the previous stop) to the next
 * stop, then dwelling there.
 */
export function dayPings(
  origin: { latitude: number; longitude: number },
  start: number,
  pings: number,
): DayPing[] {
  const stops = dayStops(origin, pings);
  const jitterDegrees = JITTER_M / METERS_PER_DEGREE;
  return Array.from({ length: pings }, (_, n) => {
    const leg = Math.floor(n / PINGS_PER_STOP);
    const step = n % PINGS_PER_STOP;
    const from = leg === 0 ? origin : (stops[leg - 1] as DayPing);
    const to = stops[leg] as DayPing;
    const along = step < DRIVING_PINGS ? step / DRIVING_PINGS : 1;
    const near = step >= DRIVING_PINGS;
    return {
      timestamp: start + n * PING_INTERVAL_MS,
      latitude: round6(
        from.latitude + (to.latitude - from.latitude) * along + (near ? jitter(n, 0) * jitterDegrees : 0),
      ),
      longitude: round6(
        from.longitude + (to.longitude - from.longitude) * along + (near ? jitter(n, 1) * jitterDegrees : 0),
      ),
    };
  });
}
