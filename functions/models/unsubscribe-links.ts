import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * One-click unsubscribe links (RFC 8058; docs/api.md, Customer notifications): `<tracking link>/unsubscribe/<address
 * key>`. The stop's tracking token names the account, route and waypoint; the address key names the email
 * address the message went to without showing it: HMAC-SHA256 of the address (lower-cased and trimmed) under a
 * key derived from the route's tracking key, cut to 128 bits. Nobody without the route's key can make one for
 * another address, nor test a guessed address against one; the endpoint opens the stop's recipient and takes the
 * link only when the key is that address's, so a link keeps to the address it was sent to (a revision that
 * changed the stop's email leaves the old link naming nobody). Derived, not stored: sending an email writes
 * nothing more.
 *
 * A model module: node:crypto only.
 */

/** What the key of address keys is derived from (by HMAC with the route's tracking key). */
const ADDRESS_KEYS_KEY = 'unsubscribe address keys';

/** An address key's bytes: 128 bits, 22 base64url characters. */
const ADDRESS_KEY_BYTES = 16;

/** What an address key looks like: anything else is none, and is not checked. */
export const ADDRESS_KEY_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** The address key of `email` on the route whose tracking key is `trackingKey` (base64url). */
export function unsubscribeAddressKey(trackingKey: string, email: string): string {
  const key = createHmac('sha256', Buffer.from(trackingKey, 'base64url')).update(ADDRESS_KEYS_KEY).digest();
  return createHmac('sha256', key)
    .update(email.trim().toLowerCase(), 'utf8')
    .digest()
    .subarray(0, ADDRESS_KEY_BYTES)
    .toString('base64url');
}

/** True when `addressKey` is the key of `email` on the route (compared in constant time). */
export function isAddressKeyOf(trackingKey: string, email: string, addressKey: string): boolean {
  if (!ADDRESS_KEY_PATTERN.test(addressKey)) return false;
  const expected = Buffer.from(unsubscribeAddressKey(trackingKey, email));
  const given = Buffer.from(addressKey);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The unsubscribe link of an email sent about the stop whose tracking link is `trackingLink`. */
export const unsubscribeUrl = (trackingLink: string, addressKey: string): string =>
  `${trackingLink}/unsubscribe/${addressKey}`;
