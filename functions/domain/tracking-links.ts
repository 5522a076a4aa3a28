import type { RouteHeader } from '../data/routes';
import { stopsInOrder } from '../data/waypoint-order';
import { tokenSequence, trackingToken, trackingUrl } from '../models/tracking-links';
import { config } from '../shared/config';

type TokenFields = Pick<RouteHeader, 'trackingKey' | 'sequencedTokensFrom'>;

/**
 * The tracking page of a waypoint of the route (models/tracking-links.ts), under the API's own URL (API_URL);
 * null for a route imported before tracking links.
 */
export function trackingUrlOf(route: TokenFields, waypoint: { id: string; sequence: number }): string | null {
  if (route.trackingKey === undefined) return null;
  const sequence = tokenSequence(route.sequencedTokensFrom, waypoint.sequence);
  return trackingUrl(config().apiUrl, trackingToken(route.trackingKey, waypoint.id, sequence));
}

/**
 * What an event that gives the route's waypoints' tracking links carries to make them (the event catalog):
 * the API's URL and the route's key, once, and the sequences of the waypoints whose tokens derive from theirs
 * (those a revision added); nothing for a route imported before tracking links.
 */
export function trackingLinksOf(
  route: TokenFields & Pick<RouteHeader, 'waypointIds' | 'waypointSequences'>,
): { api_url: string; key: string; sequences?: Record<string, number> } | undefined {
  if (route.trackingKey === undefined) return undefined;
  const sequenced = stopsInOrder(route).filter(
    ({ sequence }) => tokenSequence(route.sequencedTokensFrom, sequence) !== undefined,
  );
  return {
    api_url: config().apiUrl,
    key: route.trackingKey,
    ...(sequenced.length > 0
      ? { sequences: Object.fromEntries(sequenced.map(({ id, sequence }) => [id, sequence])) }
      : {}),
  };
}
