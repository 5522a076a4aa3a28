import { createHmac } from 'node:crypto';
import { randomSecret } from '../shared/crypto';

/**
 * Tracking links (docs/api.md §3): each waypoint's page for its customer, `<API URL>/track/<token>`. A route's
 * tracking key (32 random bytes, made when its import is accepted) derives the token of each of its waypoints:
 * HMAC-SHA256 of the waypoint id under the key, cut to 128 bits. A token names one stop only, since nobody
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

/** The token of the waypoint `waypointId` of the route whose tracking key is `key` (base64url). */
export function trackingToken(key: string, waypointId: string): string {
  return createHmac('sha256', Buffer.from(key, 'base64url'))
    .update(waypointId, 'utf8')
    .digest()
    .subarray(0, TOKEN_BYTES)
    .toString('base64url');
}

/** What a token looks like: anything else is no token, and is not looked up. */
export const TRACKING_TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** The page of a token under the API's base URL (API_URL: the stage's URL, with or without its last "/"). */
export function trackingUrl(apiUrl: string, token: string): string {
  return `${apiUrl.replace(/\/+$/, '')}/track/${token}`;
}
