import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { trackingEndpoint, UnsubscribeParams, UnsubscribeStatus } from '../schemas';

/**
 * An email's one-click unsubscribe link (RFC 8058), on the tracking host beside the stop's tracking page: the
 * token is the credential, as there. Both methods share one Lambda, which opens the stop's recipient to check
 * that the link's address key is that address's, and writes the opt-out.
 */
const shared = {
  module: import.meta.url,
  request: { params: UnsubscribeParams },
  errorCodes: [7000, 7002],
  access: { table: 'readWrite' as const, recipients: 'decrypt' as const },
  // For everyone together, as the tracking page's: far above what customers unsubscribing send, and a bound on
  // the KMS and table work anyone can cause without a key.
  throttling: { rateLimit: 10, burstLimit: 20 },
};

export const getUnsubscribePage = /* @__PURE__ */ trackingEndpoint(
  'GET /track/{token}/unsubscribe/{address_key}',
  {
    ...shared,
    operationId: 'getUnsubscribePage',
    summary:
      'An email’s unsubscribe link opened: a page with a button that unsubscribes; changes nothing (no auth)',
    description:
      'The link of an email’s `List-Unsubscribe` header and footer. A GET changes nothing (mail scanners follow links): a client that prefers `text/html` gets a page whose button POSTs the one-click body to the same URL; any other gets JSON saying whether the address is unsubscribed. 404 (7000) for a token no waypoint has; 404 (7002) for an address key that names no email address of the stop (the stop’s email changed since).',
    responses:
      import.meta.responseSchemas !== false && ok('the address the link names, masked', UnsubscribeStatus),
    htmlPage: 'a page with one button that unsubscribes (a form POSTing `List-Unsubscribe=One-Click`)',
  },
);

export const unsubscribe = /* @__PURE__ */ trackingEndpoint('POST /track/{token}/unsubscribe/{address_key}', {
  ...shared,
  operationId: 'unsubscribe',
  summary: 'RFC 8058 one-click unsubscribe: the address gets no more emails from the account (no auth)',
  description:
    'What a mail client POSTs for its unsubscribe button (RFC 8058), and the unsubscribe page’s button: the body `List-Unsubscribe=One-Click`, form-encoded (`application/x-www-form-urlencoded` or `multipart/form-data`). The address the link names gets no more emails from any DC of the account: each later one is recorded `SUPPRESSED` (`opted_out`) and not sent. Answered 200 at once, again for an address already unsubscribed. 400 (1006) for another body; 404 (7000) for a token no waypoint has; 404 (7002) for an address key that names no email address of the stop.',
  request: {
    params: UnsubscribeParams,
    body: /* @__PURE__ */ z.object({
      'List-Unsubscribe': /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.literal('One-Click'), {
        description: 'RFC 8058’s one-click value',
      }),
    }),
    bodyMediaTypes: ['application/x-www-form-urlencoded', 'multipart/form-data'],
  },
  responses: import.meta.responseSchemas !== false && ok('the address is unsubscribed', UnsubscribeStatus),
  htmlPage: 'a page saying the address is unsubscribed',
});
