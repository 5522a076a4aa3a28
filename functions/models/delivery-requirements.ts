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

/*
 * The schema-building calls are marked pure, and their arguments are free of effects as esbuild sees them (no
 * property reads, spreads or interpolations): a bundle that imports the module but not a schema drops it, as
 * with models/common.ts.
 */

const MAX_PHOTOS = 10;
const MAX_BARCODES = 10;
const MAX_MINIMUM_AGE = 125;

/** Most PHOTO proofs a stop may require, and most barcodes an item may have. */
export const REQUIREMENT_LIMITS = {
  photos: MAX_PHOTOS,
  barcodes: MAX_BARCODES,
  minimumAge: MAX_MINIMUM_AGE,
} as const;

// Messages with interpolations apart: in an argument, esbuild counts a template as an effect and keeps the call.
const PHOTOS_DESCRIPTION = `PHOTO proofs the SUCCESSFUL attempt must name (0..${MAX_PHOTOS}; 0: none)`;
const BARCODES_DESCRIPTION = `the item’s barcode values (at most ${MAX_BARCODES}): a scan with one of them counts for the item`;

const Photos = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.int().check(/* @__PURE__ */ z.minimum(0), /* @__PURE__ */ z.maximum(MAX_PHOTOS)),
  {
    description: PHOTOS_DESCRIPTION,
  },
);
const Signature = /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.boolean(), {
  description: 'a SIGNATURE proof named by the attempt, and the signer’s name (`signer_name`)',
});
const Pin = /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.boolean(), {
  description:
    'the customer’s 6-digit code (`pin` of the attempt): drawn for the stop at import, shown on its tracking page and in ROUTE_STARTED, never to the driver app',
});
const MinimumAge = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.nullable(
    /* @__PURE__ */ z.int().check(/* @__PURE__ */ z.minimum(1), /* @__PURE__ */ z.maximum(MAX_MINIMUM_AGE)),
  ),
  {
    description:
      'the recipient’s ID checked (`age_check` of the attempt) and at least this old, in whole years, on the day of the attempt in the DC’s time zone; null: no age check',
  },
);
const ScanItems = /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.boolean(), {
  description: 'every SUCCESSFUL item scanned: a scan whose value is one of the item’s `barcodes`',
});

const requirementFields = {
  photos: Photos,
  signature: Signature,
  pin: Pin,
  minimum_age: MinimumAge,
  scan_items: ScanItems,
};

/**
 * A waypoint's own rules: each one given wins over the DC's default, the others are the DC's. Strict: a
 * misspelt rule would otherwise be dropped, and the stop delivered without the check its shipper asked for.
 */
export const DeliveryRequirements = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.strictObject({
    photos: /* @__PURE__ */ z.optional(Photos),
    signature: /* @__PURE__ */ z.optional(Signature),
    pin: /* @__PURE__ */ z.optional(Pin),
    minimum_age: /* @__PURE__ */ z.optional(MinimumAge),
    scan_items: /* @__PURE__ */ z.optional(ScanItems),
  }),
  {
    id: 'DeliveryRequirements',
    description:
      'what a SUCCESSFUL visit of the stop must show; each rule given wins over the DC’s default (`delivery_requirements` of the DC’s settings), each left out is the DC’s',
  },
);

/** The rules that apply to a stop, every one stated: a DC's defaults, and what the reads show. */
export const AppliedRequirements = /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.object(requirementFields), {
  id: 'AppliedRequirements',
  description: 'the delivery rules that apply, every one stated (the stop’s own over its DC’s defaults)',
});

export type Requirements = z.output<typeof DeliveryRequirements>;
export type Applied = z.output<typeof AppliedRequirements>;

/** No rule at all: a stop of a DC without defaults, and an attempt recorded before delivery rules. */
export const NO_REQUIREMENTS: Applied = /* @__PURE__ */ Object.freeze({
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
export const Barcodes = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.array(/* @__PURE__ */ Label(128, { min: 1, notBlank: true })).check(
    /* @__PURE__ */ z.maxLength(MAX_BARCODES),
    /* @__PURE__ */ z.superRefine((barcodes, context) => {
      barcodes.forEach((barcode, index) => {
        if (barcodes.indexOf(barcode) !== index)
          context.addIssue({ code: 'custom', path: [index], message: `${quote(barcode)} is listed twice` });
      });
    }),
  ),
  {
    description: BARCODES_DESCRIPTION,
  },
);
