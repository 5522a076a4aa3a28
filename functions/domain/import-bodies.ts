import { getObjectText, ObjectTooLargeError } from '../data/bucket';
import type { Claim, ClaimKind } from '../data/claims';
import type { ImportRecord } from '../data/imports';
import type { ImportedRoute } from '../models/import-model';
import type { ErrorCodeName } from '../shared/error-codes';
import { ApiError, ConflictError, ValidationError } from '../shared/errors';
import { MAX_UPLOAD_BYTES } from '../shared/limits';
import { quote } from '../shared/quote';
import { parseJsonText, parsePart } from '../shared/request-parsing';

/**
 * An import's route body as the import and revision runs read it (from the bucket, checked as the POST checks
 * it), and the conflicts of its ids: repeated in the body, or taken by another route.
 */

const CODE_OF_KIND: Record<ClaimKind, ErrorCodeName> = {
  ROUTE: 'ROUTE_ID_TAKEN',
  WAYPOINT: 'WAYPOINT_ID_TAKEN',
  INVOICE: 'INVOICE_ID_TAKEN',
  ITEM: 'ITEM_ID_TAKEN',
  ACCOUNTING_RECORD: 'ACCOUNTING_ID_TAKEN',
};

/** 3006/3008/3009 for an id that appears twice in the body, naming where. */
export function rejectRepeatedIds(route: ImportedRoute): void {
  const seen = new Map<string, string>();
  const check = (kind: ClaimKind, id: string, path: string) => {
    const key = `${kind}/${id}`;
    const first = seen.get(key);
    if (first) {
      throw new ConflictError(
        CODE_OF_KIND[kind],
        `${path}: ${kind.toLowerCase()} id ${quote(id)} already appears at ${first}`,
      );
    }
    seen.set(key, path);
  };
  route.waypoints.forEach((waypoint, w) => {
    check('WAYPOINT', waypoint.id, `route.waypoints.${w}.id`);
    waypoint.invoices.forEach((invoice, i) => {
      check('INVOICE', invoice.id, `route.waypoints.${w}.invoices.${i}.id`);
      invoice.items.forEach((item, t) => {
        check('ITEM', item.id, `route.waypoints.${w}.invoices.${i}.items.${t}.id`);
      });
    });
  });
}

export function takenError(claim: Claim): ConflictError {
  const what = claim.kind === 'ROUTE' ? 'was already imported' : 'is already used by another route';
  return new ConflictError(
    CODE_OF_KIND[claim.kind],
    `${claim.kind.toLowerCase()} id ${quote(claim.id)} ${what}`,
  );
}

/**
 * The route of an import body, checked as POST .../invoiced-routes checks it, with the same codes and
 * messages: 1005 for malformed JSON, 1006 naming the field, 3006/3008/3009 for a repeated id.
 */
async function parseImportBody(text: string): Promise<ImportedRoute> {
  // Loaded here, not with this module: the import-status, upload and route-change functions import this
  // module too, and the body's schema (a few hundred zod objects) would cost each of them at cold start.
  const { ImportRouteBody } = await import('../models/import-model');
  const { route } = parsePart('body', ImportRouteBody, parseJsonText(text));
  rejectRepeatedIds(route);
  return route;
}

/** The body of an import from the bucket; a POSTed one is well under the upload limit. */
export async function readImportBody(record: ImportRecord): Promise<ImportedRoute> {
  try {
    const text = await getObjectText(record.payloadKey, MAX_UPLOAD_BYTES);
    // Only an upload can be empty (S3 stores a 0-byte PUT like any other).
    if (text === '')
      throw new ValidationError(
        'request body: the upload is empty (0 bytes); PUT the {"route": ...} JSON to the link',
      );
    return await parseImportBody(text);
  } catch (error) {
    if (!(error instanceof ObjectTooLargeError)) throw error;
    throw new ApiError(
      'BODY_TOO_LARGE',
      `the uploaded body has ${error.size} bytes; an upload may have at most ${MAX_UPLOAD_BYTES}`,
    );
  }
}
