import { getDc } from '../data/accounts';
import { addOptOut, isOptedOut } from '../data/opt-outs';
import { getWaypointRow } from '../data/route-rows';
import { isAddressKeyOf } from '../models/unsubscribe-links';
import { ApiError } from '../shared/errors';
import { openRecipient } from './recipients';
import { routeOfToken } from './tracked-stop';

/**
 * One-click unsubscribe (RFC 8058; docs/api.md, Customer notifications): an email's
 * `List-Unsubscribe` link, `<tracking link>/unsubscribe/<address key>` (models/unsubscribe-links.ts), opts
 * its address out of the account's emails, for every DC of the account. A link works as long as its route
 * exists, past the tracking page's expiry: a customer may unsubscribe from an email days after the delivery.
 */

/** The address an unsubscribe link names, as its page shows it. */
export interface UnsubscribeSubject {
  dcName: string;
  /** The address masked, as the waypoint reads show it. */
  email: string;
  optedOut: boolean;
}

const linkNotFound = () =>
  new ApiError(
    'UNSUBSCRIBE_LINK_NOT_FOUND',
    'path.address_key: this unsubscribe link names no email address of its stop',
  );

/** The account and address a link names: 404 (7000) for a token no waypoint has, 7002 for a key of no address. */
async function subjectOf(token: string, addressKey: string) {
  const { lookup, route } = await routeOfToken(token);
  const waypoint = await getWaypointRow(lookup.accountId, lookup.routeId, lookup.waypointSequence);
  if (!waypoint?.recipient?.masked.email || route.trackingKey === undefined) throw linkNotFound();
  const recipient = await openRecipient(lookup.accountId, lookup.routeId, waypoint.recipient);
  if (recipient.email === undefined || !isAddressKeyOf(route.trackingKey, recipient.email, addressKey))
    throw linkNotFound();
  const dc = await getDc(lookup.accountId, route.dcId);
  return {
    accountId: lookup.accountId,
    email: recipient.email,
    masked: waypoint.recipient.masked.email,
    dcName: dc?.name ?? '',
  };
}

/** What the link's page shows before the customer confirms (a GET changes nothing: link scanners follow GETs). */
export async function unsubscribeSubject(token: string, addressKey: string): Promise<UnsubscribeSubject> {
  const subject = await subjectOf(token, addressKey);
  const optedOut = await isOptedOut(subject.accountId, 'EMAIL', subject.email);
  return { dcName: subject.dcName, email: subject.masked, optedOut };
}

/** Opts the link's address out of the account's emails (again: nothing changes). */
export async function unsubscribe(
  token: string,
  addressKey: string,
  now: number,
): Promise<UnsubscribeSubject> {
  const subject = await subjectOf(token, addressKey);
  await addOptOut(subject.accountId, 'EMAIL', subject.email, 'one_click', now);
  return { dcName: subject.dcName, email: subject.masked, optedOut: true };
}
