import { quote } from '../shared/quote';
import * as z from '../shared/zod';
import { Label } from './common';

/**
 * Delivery rules (docs/api.md, Delivery rules): what a SUCCESSFUL visit of a stop must show before the service
 * records it. A waypoint of the import (or of a revision) may state them in `requirements`; its DC may have
 * defaults (`delivery_requirements` of PATCH /dcs/{dc_id}/settings), which a route takes when it is imported or revised. Each
 * rule a waypoint states wins over the DC's; the rules it leaves out are the DC's.
 *
 * A model module (zod only): the import model, the endpoints' schemas and the domain share it.
 */

/** Most PHOTO proofs a stop may require, and most barcodes an item may have. */
export const REQUIREMENT_LIMITS = { photos: 10, barcodes: 10, minimumAge: 125 } as const;

const requirementFields = {
  photos: z.withMeta(z.int().check(z.minimum(0), z.maximum(REQUIREMENT_LIMITS.photos)), {
    description: `PHOTO proofs the SUCCESSFUL attempt must name (0..${REQUIREMENT_LIMITS.photos}; 0: none)`,
  }),
  signature: z.withMeta(z.boolean(), {
    description: 'a SIGNATURE proof named by the attempt, and the signer’s name (`signer_name`)',
  }),
  pin: z.withMeta(z.boolean(), {
    description:
      'the customer’s 6-digit code (`pin` of the attempt): drawn for the stop at import, shown on its tracking page and in ROUTE_STARTED, never to the driver app',
  }),
  minimum_age: z.withMeta(z.nullable(z.int().check(z.minimum(1), z.maximum(REQUIREMENT_LIMITS.minimumAge))), {
    description:
      'the recipient’s ID checked (`age_check` of the attempt) and at least this old, in whole years, on the day of the attempt in the DC’s time zone; null: no age check',
  }),
  scan_items: z.withMeta(z.boolean(), {
    description: 'every SUCCESSFUL item scanned: a scan whose value is one of the item’s `barcodes`',
  }),
};

/**
 * A waypoint's own rules: each one given wins over the DC's default, the others are the DC's. Strict: a
 * misspelt rule would otherwise be dropped, and the stop delivered without the check its shipper asked for.
 */
export const DeliveryRequirements = z.withMeta(
  z.strictObject({
    photos: z.optional(requirementFields.photos),
    signature: z.optional(requirementFields.signature),
    pin: z.optional(requirementFields.pin),
    minimum_age: z.optional(requirementFields.minimum_age),
    scan_items: z.optional(requirementFields.scan_items),
  }),
  {
    id: 'DeliveryRequirements',
    description:
      'what a SUCCESSFUL visit of the stop must show; each rule given wins over the DC’s default (`delivery_requirements` of the DC’s settings), each left out is the DC’s',
  },
);

/** The rules that apply to a stop, every one stated: a DC's defaults, and what the reads show. */
export const AppliedRequirements = z.withMeta(z.object(requirementFields), {
  id: 'AppliedRequirements',
  description: 'the delivery rules that apply, every one stated (the stop’s own over its DC’s defaults)',
});

export type Requirements = z.output<typeof DeliveryRequirements>;
export type Applied = z.output<typeof AppliedRequirements>;

/** No rule at all: a stop of a DC without defaults, and an attempt recorded before delivery rules. */
export const NO_REQUIREMENTS: Applied = Object.freeze({
  photos: 0,
  signature: false,
  pin: false,
  minimum_age: null,
  scan_items: false,
});

/** The rules of a stop: each of its own, else the DC's default (as the route took it), else none. */
export function appliedRequirements(defaults: Applied | undefined, own: Requirements | undefined): Applied {
  const base = defaults ?? NO_REQUIREMENTS;
  return {
    photos: own?.photos ?? base.photos,
    signature: own?.signature ?? base.signature,
    pin: own?.pin ?? base.pin,
    minimum_age: own?.minimum_age === undefined ? base.minimum_age : own.minimum_age,
    scan_items: own?.scan_items ?? base.scan_items,
  };
}

/** True when the rules ask for nothing. */
export const requiresNothing = (rules: Applied) =>
  rules.photos === 0 && !rules.signature && !rules.pin && rules.minimum_age === null && !rules.scan_items;

/** An item's barcode values: what a scan's value is matched against. */
export const Barcodes = z.withMeta(
  z.array(Label(128, { min: 1, notBlank: true })).check(
    z.maxLength(REQUIREMENT_LIMITS.barcodes),
    z.superRefine((barcodes, context) => {
      barcodes.forEach((barcode, index) => {
        if (barcodes.indexOf(barcode) !== index)
          context.addIssue({ code: 'custom', path: [index], message: `${quote(barcode)} is listed twice` });
      });
    }),
  ),
  {
    description: `the item’s barcode values (at most ${REQUIREMENT_LIMITS.barcodes}): a scan with one of them counts for the item`,
  },
);
