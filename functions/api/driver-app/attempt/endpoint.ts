import { CalendarDate, Id, Label, Location, Name, ReportedTimestamp } from '../../../models/common';
import { PROOF_LIMITS } from '../../../shared/limits';
import { quote } from '../../../shared/quote';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { ProofId } from '../../routes/proof-schemas';
import { Attempt, FailureReason } from '../../routes/waypoint-schemas';
import { driverAppEndpoint, RouteParams } from '../schemas';

/** At most this many items get their own outcome in one attempt (the rest take the attempt's status). */
export const MAX_ATTEMPT_ITEMS = 500;

/**
 * At most this many barcode scans in one attempt. Each stored scan adds the id of the item it counts for,
 * outside the byte budget below: 200 of them (384 bytes each at most) keep the attempt under DynamoDB's 400 KB.
 */
export const MAX_ATTEMPT_SCANS = 200;

/**
 * Most bytes the item ids, reasons and scans an attempt lists may have together (UTF-8, as JSON writes them).
 * The attempt is stored as one item, which DynamoDB caps at 400 KB: 500 items with long ids and reasons in a
 * non-Latin script would pass that, so the request is refused instead of failing when written.
 */
export const MAX_ATTEMPT_ITEM_BYTES = 256 * 1024;

const jsonBytesOf = (text: string) => Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;

export const AttemptBody = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z
    .object({
      id: /* @__PURE__ */ z.withMeta(Id, {
        description: 'chosen by the app; sending the same id again is harmless',
      }),
      timestamp: ReportedTimestamp,
      status: /* @__PURE__ */ z.enum(['SUCCESSFUL', 'FAILED', 'VISIT_LATER']),
      reason: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(FailureReason), {
        description: 'required when FAILED; also the reason of the items it fails without one of their own',
      }),
      location: /* @__PURE__ */ z.optional(Location),
      items: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z.optional(
          /* @__PURE__ */ z
            .array(
              /* @__PURE__ */ z.object({
                id: Id,
                status: /* @__PURE__ */ z.enum(['SUCCESSFUL', 'FAILED']),
                reason: /* @__PURE__ */ z.optional(FailureReason),
              }),
            )
            .check(/* @__PURE__ */ z.maxLength(MAX_ATTEMPT_ITEMS)),
        ),
        {
          description: 'items with their own outcome; the others take the attempt’s (VISIT_LATER: none)',
        },
      ),
      proof_ids: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z.optional(
          /* @__PURE__ */ z.array(ProofId).check(/* @__PURE__ */ z.maxLength(PROOF_LIMITS.perAttempt)),
        ),
        {
          description: `AVAILABLE proofs of this waypoint (photos, signatures) the visit produced, at most ${PROOF_LIMITS.perAttempt}; a proof is named by one attempt only`,
        },
      ),
      signer_name: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(Name), {
        description: 'who signed for the delivery',
      }),
      scans: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z.optional(
          /* @__PURE__ */ z
            .array(
              /* @__PURE__ */ z.object({
                value: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ Label(128, { min: 1, notBlank: true }), {
                  description: 'the barcode read',
                }),
                timestamp: ReportedTimestamp,
                item_id: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(Id), {
                  description:
                    'the item scanned, when the app knows; the value must then be one of its barcodes',
                }),
              }),
            )
            .check(/* @__PURE__ */ z.maxLength(MAX_ATTEMPT_SCANS)),
        ),
        {
          description: `barcode scans of the visit (at most ${MAX_ATTEMPT_SCANS}): a value that is one of an item’s barcodes counts for it, any other is kept as a mismatch`,
        },
      ),
      pin: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z.optional(
          /* @__PURE__ */ z
            .string()
            .check(/* @__PURE__ */ z.regex(/^\d{6}$/, 'must be the 6 digits of the code')),
        ),
        {
          description:
            'the code the customer gave, for a stop that requires a PIN (`requirements.pin`): checked, never kept; 5 wrong codes lock the stop’s PIN check until the dispatcher resets it',
        },
      ),
      age_check: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z.optional(
          /* @__PURE__ */ z.object({
            method: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.enum(['ID_CHECKED']), {
              description: 'how the age was checked: the driver saw the recipient’s ID',
            }),
            date_of_birth: /* @__PURE__ */ z.withMeta(CalendarDate, {
              description: 'YYYY-MM-DD as the ID shows it: the age is computed from it, and it is not kept',
            }),
          }),
        ),
        {
          description:
            'the recipient’s ID check, for a stop with a `minimum_age`: the age on the day of the attempt in the DC’s time zone; only the method, the outcome and the time are kept',
        },
      ),
    })
    .check(
      /* @__PURE__ */ z.superRefine((attempt, context) => {
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
        for (const scan of attempt.scans ?? [])
          itemBytes += jsonBytesOf(scan.value) + (scan.item_id ? jsonBytesOf(scan.item_id) : 0);
        if (itemBytes > MAX_ATTEMPT_ITEM_BYTES) {
          context.addIssue({
            code: 'custom',
            path: [attempt.scans?.length ? 'scans' : 'items'],
            message: `the listed items' ids and reasons and the scans may have at most ${MAX_ATTEMPT_ITEM_BYTES} bytes together (UTF-8, as JSON writes them); these have ${itemBytes}`,
          });
        }
      }),
    ),
  { id: 'AttemptRequest' },
);

export const recordDriverAttempt = /* @__PURE__ */ driverAppEndpoint(
  'POST /driver/routes/{route_id}/waypoints/{waypoint_id}/attempts',
  {
    operationId: 'recordDriverAttempt',
    module: import.meta.url,
    // Its ROUTE_ETAS_CHANGED gives the waypoints' tracking links.
    linksToApi: true,
    summary:
      'Record a visit of a waypoint with its items’ outcomes, held to the stop’s delivery rules; WAYPOINT_STATUS_CHANGED, then new ETAs',
    request: { params: /* @__PURE__ */ z.extend(RouteParams, { waypoint_id: Id }), body: AttemptBody },
    responses:
      import.meta.responseSchemas !== false &&
      ok('the attempt as recorded (the first one, for a repeated id)', z.object({ attempt: Attempt })),
    errorCodes: [3003, 3011, 3012, 3013, 9001, 9002, 9100, 9101, 9102, 9103, 9104, 9105, 9106, 9107, 3102],
  },
);
