import { FULL_PAGES, Id, Location, Name, ReportedTimestamp } from '../../models/common';
import { PROOF_LIMITS } from '../../shared/limits';
import { quote } from '../../shared/quote';
import * as z from '../../shared/zod';
import { endpointGroup } from '../define';
import { InvoiceStatus } from '../routes/invoice-schemas';
import { ProofId } from '../routes/proof-schemas';
import { Route } from '../routes/schemas';
import { FailureReason, Waypoint } from '../routes/waypoint-schemas';

/** The driver app's API (docs/api.md §2): `Authorization: Bearer <login_token>`; the token names DC and driver. */
export const TAG = 'Driver app';

export const RouteParams = z.object({ route_id: Id });

export const TimestampBody = z.withMeta(z.object({ timestamp: ReportedTimestamp }), {
  id: 'DriverActionTimestamp',
});

export const RouteData = z.object({ route: Route });

/**
 * The driver app's rows: a driver token's and about one of its routes unless the row says otherwise. Each
 * writes the table: every sign-in may record a failure (functions/domain/driver-auth.ts).
 */
export const driverAppEndpoint = endpointGroup({
  auth: 'driverToken',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: RouteParams },
});

/** Rows that move one of the driver's routes on at the time the app reports, and answer the route. */
export const driverRouteStepEndpoint = endpointGroup({
  auth: 'driverToken',
  tag: TAG,
  access: { table: 'readWrite' },
  request: { params: RouteParams, body: TimestampBody },
});

/** At most this many items get their own outcome in one attempt (the rest take the attempt's status). */
export const MAX_ATTEMPT_ITEMS = 500;

/**
 * Most bytes the item ids and reasons an attempt lists may have together (UTF-8, as JSON writes them). The
 * attempt is stored as one item, which DynamoDB caps at 400 KB: 500 items with long ids and reasons in a
 * non-Latin script would pass that, so the request is refused instead of failing when written.
 */
export const MAX_ATTEMPT_ITEM_BYTES = 256 * 1024;

export const jsonBytesOf = (text: string) => Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;

export const AttemptBody = z.withMeta(
  z
    .object({
      id: z.withMeta(Id, { description: 'chosen by the app; sending the same id again is harmless' }),
      timestamp: ReportedTimestamp,
      status: z.enum(['SUCCESSFUL', 'FAILED', 'VISIT_LATER']),
      reason: z.withMeta(z.optional(FailureReason), {
        description: 'required when FAILED; also the reason of the items it fails without one of their own',
      }),
      location: z.optional(Location),
      items: z.withMeta(
        z.optional(
          z
            .array(
              z.object({
                id: Id,
                status: z.enum(['SUCCESSFUL', 'FAILED']),
                reason: z.optional(FailureReason),
              }),
            )
            .check(z.maxLength(MAX_ATTEMPT_ITEMS)),
        ),
        {
          description: 'items with their own outcome; the others take the attempt’s (VISIT_LATER: none)',
        },
      ),
      proof_ids: z.withMeta(z.optional(z.array(ProofId).check(z.maxLength(PROOF_LIMITS.perAttempt))), {
        description: `AVAILABLE proofs of this waypoint (photos, signatures) the visit produced, at most ${PROOF_LIMITS.perAttempt}; a proof is named by one attempt only`,
      }),
      signer_name: z.withMeta(z.optional(Name), { description: 'who signed for the delivery' }),
    })
    .check(
      z.superRefine((attempt, context) => {
        if (attempt.status === 'FAILED' && !attempt.reason) {
          context.addIssue({
            code: 'custom',
            path: ['reason'],
            message: 'is required when status is FAILED',
          });
        }
        attempt.proof_ids?.forEach((proofId, index) => {
          if (attempt.proof_ids?.indexOf(proofId) !== index) {
            context.addIssue({
              code: 'custom',
              path: ['proof_ids', index],
              message: `${quote(proofId)} is listed twice`,
            });
          }
        });
        const seen = new Set<string>();
        let itemBytes = 0;
        attempt.items?.forEach((item, index) => {
          itemBytes +=
            jsonBytesOf(item.id) +
            (item.reason ? jsonBytesOf(item.reason.code) + jsonBytesOf(item.reason.message) : 0);
          if (seen.has(item.id)) {
            context.addIssue({
              code: 'custom',
              path: ['items', index, 'id'],
              message: `${quote(item.id)} is listed twice`,
            });
          }
          seen.add(item.id);
          if (item.status === 'FAILED' && !item.reason && !attempt.reason) {
            context.addIssue({
              code: 'custom',
              path: ['items', index, 'reason'],
              message: 'is required when status is FAILED and the attempt has no reason',
            });
          }
        });
        if (itemBytes > MAX_ATTEMPT_ITEM_BYTES) {
          context.addIssue({
            code: 'custom',
            path: ['items'],
            message: `the listed items' ids and reasons may have at most ${MAX_ATTEMPT_ITEM_BYTES} bytes together (UTF-8, as JSON writes them); these have ${itemBytes}`,
          });
        }
      }),
    ),
  { id: 'AttemptRequest' },
);

export const DriverRoute = z.withMeta(
  z.extend(Route, {
    waypoints: z.array(z.extend(Waypoint, { invoices: z.array(InvoiceStatus) })),
  }),
  { id: 'DriverRoute', description: 'a route with its waypoints, invoices and item statuses' },
);

/**
 * Waypoints per page of the driver's routes. One route of 2,000 worst-case waypoints is 10 MB without its
 * invoices, so pages count waypoints (with their invoices and items), and the byte budget ends a page of
 * large waypoints early.
 */
export const DRIVER_ROUTE_WAYPOINTS_PAGE = FULL_PAGES;
