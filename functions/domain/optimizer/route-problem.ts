import { DEFAULT_SPEED_KMH, type LatLng, travelMeters, travelMillis } from '../etas';
import { endOf, startOf, type TimeWindow, type TourProblem } from './tour';

/**
 * A route's stops still to visit as the optimizer's TourProblem, under the service's travel model
 * (functions/domain/etas.ts: the ETAs' times between places), and an order's figures as the API reports them.
 */

export interface StopToVisit {
  location: LatLng;
  serviceTimeMinutes: number;
  timeWindows: readonly TimeWindow[];
  /** Keeps its place in the order. */
  locked: boolean;
}

export interface RouteTour {
  /** Epoch ms when the driver leaves `origin`. */
  departAt: number;
  /** Where the driver starts (the start warehouse, the driver's location, the last visited stop); none: anywhere. */
  origin?: LatLng;
  /** Where the route ends (the end warehouse); none: at its last stop. */
  end?: LatLng;
  /** In their current order. */
  stops: readonly StopToVisit[];
  speedKmh?: number;
}

/** The problem of ordering `tour`'s stops: driving times between every two places (n + 2 of them). */
export function problemOf(tour: RouteTour): TourProblem {
  const n = tour.stops.length;
  const speed = tour.speedKmh ?? DEFAULT_SPEED_KMH;
  const places: (LatLng | undefined)[] = [...tour.stops.map((stop) => stop.location), tour.origin, tour.end];
  const size = n + 2;
  const cost = new Float64Array(size * size);
  for (let a = 0; a < size; a++) {
    const from = places[a];
    for (let b = a + 1; b < size; b++) {
      const to = places[b];
      const millis = from && to ? travelMillis(from, to, speed) : 0;
      cost[a * size + b] = millis;
      cost[b * size + a] = millis;
    }
  }
  return {
    n,
    cost,
    departAt: tour.departAt,
    serviceMillis: tour.stops.map((stop) => Math.round(stop.serviceTimeMinutes * 60_000)),
    windows: tour.stops.map((stop) => stop.timeWindows),
    locked: tour.stops.map((stop) => stop.locked),
  };
}

/** What an order achieves, as GET .../optimizations/{id} answers it (`before` and `after`). */
export interface OrderFigures {
  distance_meters: number;
  driving_seconds: number;
  late_waypoints: number;
  lateness_seconds: number;
  finish_timestamp: number;
}

/** The figures of visiting `tour`'s stops in `order` (stop numbers), by the schedule the optimizer computed. */
export function figuresOf(
  tour: RouteTour,
  problem: TourProblem,
  order: readonly number[],
  schedule: { latenessMillis: number; lateStops: number; drivingMillis: number; finish: number },
): OrderFigures {
  const placeOf = (index: number) =>
    index === startOf(problem)
      ? tour.origin
      : index === endOf(problem)
        ? tour.end
        : tour.stops[index]?.location;
  const path = [startOf(problem), ...order, endOf(problem)];
  let meters = 0;
  for (let index = 1; index < path.length; index++) {
    const from = placeOf(path[index - 1] as number);
    const to = placeOf(path[index] as number);
    if (from && to) meters += travelMeters(from, to);
  }
  return {
    distance_meters: Math.round(meters),
    driving_seconds: Math.round(schedule.drivingMillis / 1000),
    late_waypoints: schedule.lateStops,
    lateness_seconds: Math.ceil(schedule.latenessMillis / 1000),
    finish_timestamp: schedule.finish,
  };
}
