import { createHmac } from 'node:crypto';
import { randomSecret } from '../shared/crypto';

/**
 * Tracking links (docs/api.md §3): each waypoint's page for its customer, `<API URL>/track/<token>`. A route's
 * tracking key (32 random bytes, made when its import is accepted) derives the token of each of its waypoints:
 * HMAC-SHA256 of the waypoint id under the key (of its sequence and id, for a waypoint a revision added), cut
 * to 128 bits. A token names one stop only, since nobody
 * without the key can get from it to any other stop's (HMAC is a pseudorandom function), and nobody can guess
 * one (2^128 of them). Deriving instead of storing a token per waypoint keeps the events that carry every
 * stop's link small: an event holds the key once, not 2,000 tokens (event-catalog.ts).
 *
 * A model module: node:crypto only (shared/crypto.ts uses nothing else), so the event catalog builds the links
 * of a webhook body with it.
 */

/** A new route's tracking key: 32 random bytes, base64url. */
export const newTrackingKey = (): string => randomSecret('', 32);

/** A token's bytes: 128 bits, 22 base64url characters. */
const TOKEN_BYTES = 16;

/** What the key of the tokens of waypoints added by revisions is derived from (by HMAC with the route's). */
const ADDED_WAYPOINTS_KEY = 'tracking tokens of waypoints added by revisions';

/**
 * The token of the waypoint `waypointId` of the route whose tracking key is `key` (base64url). A waypoint a
 * revision added derives it from its `sequence` as well (tokenSequence), under a key of its own derived from
 * the route's: no waypoint of a route ever takes the sequence of another, so an id a revision removed and
 * added again gets a new token, and the earlier stop's customer cannot open the new one.
 */
export function trackingToken(key: string, waypointId: string, sequence?: number): string {
  const routeKey = Buffer.from(key, 'base64url');
  const [hmacKey, input] =
    sequence === undefined
      ? [routeKey, waypointId]
      : [createHmac('sha256', routeKey).update(ADDED_WAYPOINTS_KEY).digest(), `${sequence}:${waypointId}`];
  return createHmac('sha256', hmacKey)
    .update(input, 'utf8')
    .digest()
    .subarray(0, TOKEN_BYTES)
    .toString('base64url');
}

/**
 * The sequence a waypoint's token derives from (trackingToken): its own when it is at least the route's
 * `sequencedTokensFrom` (the first sequence a revision gave a waypoint it added), else none: the waypoints a
 * route was imported with, and those revisions added before tokens took sequences, keep the token their
 * links were sent with.
 */
export const tokenSequence = (
  sequencedTokensFrom: number | undefined,
  sequence: number,
): number | undefined =>
  sequencedTokensFrom !== undefined && sequence >= sequencedTokensFrom ? sequence : undefined;

/** What a token looks like: anything else is no token, and is not looked up. */
export const TRACKING_TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** The page of a token under the API's base URL (API_URL: the stage's URL, with or without its last "/"). */
export function trackingUrl(apiUrl: string, token: string): string {
  return `${apiUrl.replace(/\/+$/, '')}/track/${token}`;
}
