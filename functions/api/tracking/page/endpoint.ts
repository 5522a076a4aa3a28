import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { TrackedStop, trackingEndpoint } from '../schemas';

export const getTrackingPage = /* @__PURE__ */ trackingEndpoint('GET /track/{token}', {
  operationId: 'getTrackingPage',
  module: import.meta.url,
  summary:
    'A waypoint’s tracking page for its customer: HTML for a browser, the same facts as JSON (no auth)',
  description:
    'The link is the waypoint’s `tracking_url`. A client that prefers `text/html` (a browser) gets the page, rendered on the server, readable without JavaScript and refreshing itself every 30 seconds while the delivery is to come; any other gets JSON. It shows this waypoint only: nothing of any other stop or customer, the driver by first name, never where the driver is; for a stop that requires a PIN, the code the customer gives the driver. 404 (7000) for a token no waypoint has; 410 (7001) from 24 hours after the waypoint was done or its route finished.',
  request: {
    params: /* @__PURE__ */ z.object({
      token: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
        description: 'the token of the waypoint’s `tracking_url`',
      }),
    }),
  },
  responses: import.meta.responseSchemas !== false && ok('the waypoint as its customer sees it', TrackedStop),
  htmlPage:
    'the same facts as a page for people, for a client that prefers `text/html`: its own origin only (`Content-Security-Policy`), fit for a phone',
  errorCodes: [7000, 7001],
  // For everyone together (no account to hold it per caller): 750 pages open at once, each reloading every 30 s,
  // and a bound on the reads anyone can make the table serve without a key.
  throttling: { rateLimit: 25, burstLimit: 50 },
});
