import type { RouteHeader } from '../data/routes';
import { trackingToken, trackingUrl } from '../models/tracking-links';
import { config } from '../shared/config';

/**
 * The tracking page of a waypoint of the route (models/tracking-links.ts), under the API's own URL (API_URL);
 * null for a route imported before tracking links.
 */
export function trackingUrlOf(route: Pick<RouteHeader, 'trackingKey'>, waypointId: string): string | null {
  if (route.trackingKey === undefined) return null;
  return trackingUrl(config().apiUrl, trackingToken(route.trackingKey, waypointId));
}

/**
 * What an event that gives the route's waypoints' tracking links carries to make them (the event catalog):
 * the API's URL and the route's key, once; nothing for a route imported before tracking links.
 */
export function trackingLinksOf(
  route: Pick<RouteHeader, 'trackingKey'>,
): { api_url: string; key: string } | undefined {
  if (route.trackingKey === undefined) return undefined;
  return { api_url: config().apiUrl, key: route.trackingKey };
}
