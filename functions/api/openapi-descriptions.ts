import { isDcScoped, takesIdempotencyKey } from './define';
import type { DocumentedEndpoint } from './openapi';

// The OpenAPI document's words beyond the endpoint definitions' own: its tags and each operation's description.

/** The tag of the document's `webhooks` section: what the service sends. */
export const WEBHOOK_EVENTS_TAG = 'Webhook events';

/** Each tag (an endpoint group's, functions/api/<group>/schemas.ts), as the document's `tags` list describes it. */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  DCs: 'The distribution centres of the key’s account: the scope of its drivers and routes.',
  Drivers:
    'A DC’s drivers: their login tokens for the driver app, their last locations and their active routes.',
  Routes:
    'Importing, revising and running a DC’s routes; their waypoints, invoices, cash records, proofs of delivery and evidence.',
  'Driver app':
    'What the driver’s phone calls, with the driver’s login token: the driver’s routes, starting and finishing them, delivery attempts, proofs, cash and locations.',
  Webhooks:
    'Where the account’s events are POSTed, signed: the webhooks, their delivery logs and redeliveries.',
  Events:
    'Every event of the account in the order the feed took them, kept 30 days: what the webhooks deliver.',
  Analytics: 'Figures of finished routes and their attempts, and CSV files of DC-days.',
  Tracking: 'A waypoint’s tracking page for its customer: public, found by its link’s token.',
  Docs: 'This reference: the OpenAPI document and the page that renders it.',
  [WEBHOOK_EVENTS_TAG]: 'What the service POSTs to a webhook: one body per event type, signed.',
};

/**
 * An operation's description: what its definition says beyond the summary, then how it is called (its
 * credentials and their scope, an Idempotency-Key, its own throttle), all read from the definition.
 */
export function operationDescription(endpoint: DocumentedEndpoint): string {
  const calling: string[] = [];
  if (endpoint.auth === 'apiKey')
    calling.push(
      isDcScoped(endpoint)
        ? 'Called with an account’s API key, on one of the account’s DCs (another DC is 403, 1002).'
        : 'Called with an account’s API key; it sees and changes only that account’s data.',
    );
  else if (endpoint.auth === 'driverToken')
    calling.push('Called with a driver’s login token: it sees and changes only that driver’s own routes.');
  else calling.push('Public: no credentials.');
  if (takesIdempotencyKey(endpoint))
    calling.push(
      'Takes an `Idempotency-Key`: the same request sent again with it within 24 hours gets the first answer again.',
    );
  if (endpoint.throttling) {
    const { rateLimit, burstLimit } = endpoint.throttling;
    calling.push(
      endpoint.auth === 'none'
        ? `Its own limit, for all callers together: ${rateLimit} requests a second, bursts of ${burstLimit}.`
        : `Its own limit, for each account: ${rateLimit} requests a second, bursts of ${burstLimit}.`,
    );
  }
  return [endpoint.description, calling.join(' ')].filter(Boolean).join('\n\n');
}
