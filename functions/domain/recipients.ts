import { createHmac } from 'node:crypto';
import type { StoredRecipient } from '../data/route-rows';
import { isSealedSecret, openSecret, sealSecrets } from '../data/secret-envelope';
import type { ImportedRoute } from '../models/import-model';
import { maskRecipient, type Recipient } from '../models/recipient';
import type { RecipientContext } from '../shared/resources';

/**
 * Waypoints' recipients at rest (docs/api.md, Customer notifications): each sealed as webhook secrets are
 * (functions/data/secret-envelope.ts: AES-256-GCM under a KMS data key of the webhook secrets key), under
 * its route's encryption context, so a sealed recipient copied to another route (or account) does not open.
 * One GenerateDataKey per import or revision seals all of its recipients. Beside the sealed value the row
 * keeps the masked form the reads answer, and a digest that lets a revision tell an unchanged recipient
 * from a changed one without opening it. Never logged: no function logs a row or a recipient.
 */

export const recipientContext = (accountId: string, routeId: string) =>
  ({ account_id: accountId, recipient_route_id: routeId }) satisfies RecipientContext;

/**
 * HMAC-SHA256 of the recipient under a key derived from the route's tracking key: equal recipients give equal
 * digests on the same route, and nobody without the key (the account's own reads only) can test a guessed
 * phone number against one. A route without a tracking key (imported before them) has no digest: each
 * revision then counts its recipients as changed.
 */
function recipientDigest(trackingKey: string | undefined, waypointId: string, recipient: Recipient) {
  if (trackingKey === undefined) return undefined;
  const key = createHmac('sha256', Buffer.from(trackingKey, 'base64url')).update('recipients').digest();
  const canonical = JSON.stringify([
    waypointId,
    recipient.name ?? null,
    recipient.phone ?? null,
    recipient.email ?? null,
    recipient.locale,
  ]);
  return createHmac('sha256', key).update(canonical, 'utf8').digest('base64url');
}

/**
 * The recipients of a route body's waypoints, sealed, by waypoint id (one KMS call, none when no waypoint
 * has one).
 */
export async function sealRecipients(
  accountId: string,
  route: Pick<ImportedRoute, 'id' | 'waypoints'>,
  trackingKey: string | undefined,
): Promise<Map<string, StoredRecipient>> {
  const withRecipient = route.waypoints.filter(
    (waypoint): waypoint is typeof waypoint & { recipient: Recipient } => waypoint.recipient !== undefined,
  );
  if (withRecipient.length === 0) return new Map();
  const sealed = await sealSecrets(
    withRecipient.map((waypoint) => JSON.stringify(waypoint.recipient)),
    recipientContext(accountId, route.id),
  );
  return new Map(
    withRecipient.map((waypoint, index) => {
      const digest = recipientDigest(trackingKey, waypoint.id, waypoint.recipient);
      const stored: StoredRecipient = {
        sealed: sealed[index] as StoredRecipient['sealed'],
        masked: maskRecipient(waypoint.recipient),
        ...(digest === undefined ? {} : { digest }),
      };
      return [waypoint.id, stored];
    }),
  );
}

/** The recipient in plain text, to send a message; UnreadableSecretError when it does not open for the route. */
export async function openRecipient(
  accountId: string,
  routeId: string,
  stored: StoredRecipient,
): Promise<Recipient> {
  if (!isSealedSecret(stored.sealed)) throw new Error('the stored recipient is of no known form');
  return JSON.parse(await openSecret(stored.sealed, recipientContext(accountId, routeId))) as Recipient;
}
