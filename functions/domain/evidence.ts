import { type AccountingRecord, listAccountingRecords } from '../data/accounting';
import { getDc } from '../data/accounts';
import { type Attempt, listAttempts } from '../data/attempts';
import { bucketKeys } from '../data/bucket-keys';
import { listInvoiceRowsOfWaypoints } from '../data/invoice-rows';
import { listWaypointProofs, type Proof } from '../data/proofs';
import { findWaypointRowOfInvoice, type InvoiceRow, type WaypointRow } from '../data/route-rows';
import { config } from '../shared/config';
import { NotFoundError } from '../shared/errors';
import { quote } from '../shared/quote';
import { lifecycleExpiry } from '../shared/resources';
import { type DeliveryNote, type DeliveryNoteContent, deliveryNote } from './delivery-note';
import { type ServedProof, serveProof } from './proofs';
import { itemStatusOf, type WaypointStatus } from './route-progress';
import { type RouteHeader, type RouteRef, requireRoute } from './routes';

/** Who signed for the delivery: the latest attempt that names a signer. */
export interface Signer {
  name: string;
  attemptId: string;
  timestamp: number;
}

/** Everything recorded about the delivery of one invoice, as a dispatcher shows it in a dispute. */
export interface InvoiceEvidence {
  route: RouteHeader;
  waypoint: WaypointRow & { status: WaypointStatus };
  /** With each item's latest status. */
  invoice: InvoiceRow;
  /** The waypoint's attempts, oldest first. */
  attempts: Attempt[];
  /** The route's cash accounting records: a record names its route and driver, not an invoice. */
  cashRecords: AccountingRecord[];
  /** The waypoint's AVAILABLE proofs, with download links; pending and rejected ones are no evidence. */
  proofs: ServedProof[];
  signer?: Signer;
  /** Undefined once the evidence is past its retention and no note drawn before is kept (evidenceIsWhole). */
  deliveryNote?: DeliveryNote & {
    /** The signature proof whose image the note shows. */
    signatureProofId?: string;
  };
}

/**
 * Whether the waypoint's evidence is whole at `now`, so that a delivery note may be drawn from it. Every file
 * of a route's evidence (a proof, a note) is made after the route's import, and the bucket keeps each
 * `retentionDays` from when it was made (lifecycleExpiry): until that long after the import, none has
 * expired. After it some may have, and so it is once a proof an attempt names is gone. A note drawn then
 * would show the delivery without what it was proved by (a signature): none is drawn again.
 */
export function evidenceIsWhole(
  route: Pick<RouteHeader, 'createdAt'>,
  attempts: readonly Pick<Attempt, 'proofIds'>[],
  held: readonly Pick<Proof, 'id'>[],
  { now, retentionDays }: { now: number; retentionDays: number },
): boolean {
  if (now >= lifecycleExpiry(route.createdAt, retentionDays)) return false;
  const ids = new Set(held.map((proof) => proof.id));
  return attempts.every((attempt) => attempt.proofIds.every((id) => ids.has(id)));
}

/**
 * The evidence of an invoice of the route: 404 (3003) for a route not in the DC, 404 (1003) for an invoice
 * that no waypoint of the route lists (an unknown invoice, or one of a cancelled waypoint). Its delivery note
 * is drawn on the first read of each new state of the evidence and kept (deliveryNote), while the evidence
 * is whole (evidenceIsWhole); its proofs are those not past their retention.
 */
export async function invoiceEvidence(ref: RouteRef, invoiceId: string): Promise<InvoiceEvidence> {
  const route = await requireRoute(ref);
  const waypoint = await findWaypointRowOfInvoice(ref.accountId, ref.routeId, invoiceId);
  const notFound = () =>
    new NotFoundError(`invoice_id: invoice ${quote(invoiceId)} not found on route ${quote(ref.routeId)}`);
  if (!waypoint) throw notFound();
  const { sequence } = waypoint;
  const [invoices, attempts, proofs, { items: cashRecords }, dc] = await Promise.all([
    listInvoiceRowsOfWaypoints(route, sequence, sequence),
    listAttempts(ref.accountId, ref.routeId, { first: sequence, last: sequence }),
    listWaypointProofs(ref.accountId, ref.routeId, sequence),
    listAccountingRecords(ref.accountId, ref.routeId),
    getDc(ref.accountId, ref.dcId),
  ]);
  const stored = invoices.find((candidate) => candidate.id === invoiceId);
  if (!stored) throw notFound();
  const invoice: InvoiceRow = {
    ...stored,
    items: stored.items.map((item) => ({ ...item, status: itemStatusOf(item.id, attempts) })),
  };
  const available = proofs.filter((proof) => proof.status === 'AVAILABLE');
  const { signer, signature } = signatureOf(attempts, available);
  const status: WaypointStatus = attempts.at(-1)?.status ?? 'PENDING';
  const content: DeliveryNoteContent = {
    dc: { id: ref.dcId, name: dc?.name ?? ref.dcId, timeZone: dc?.timeZone ?? 'UTC' },
    route: { id: route.routeId, name: route.name },
    waypoint: {
      id: waypoint.id,
      name: waypoint.name,
      address: waypoint.address,
      customerId: waypoint.customerId,
      status,
    },
    invoice: {
      id: invoice.id,
      paymentMethod: invoice.paymentMethod,
      nameAttributes: invoice.nameAttributes,
      items: invoice.items.map((item) => ({
        id: item.id,
        sku: item.sku,
        name: item.name,
        quantity: item.quantity,
        unit: item.displayUnitOfMeasure,
        status: item.status,
      })),
    },
    attempts: attempts.map((attempt) => ({
      id: attempt.id,
      timestamp: attempt.timestamp,
      status: attempt.status,
      reason: attempt.reason,
      location: attempt.location,
      signerName: attempt.signerName,
      rules: attempt.rules,
      scans: attempt.scans?.length
        ? {
            matched: attempt.scans.filter((scan) => scan.matched_item_id !== undefined).length,
            mismatched: attempt.scans.filter((scan) => scan.matched_item_id === undefined).length,
          }
        : undefined,
      pinVerified: attempt.pinVerified,
      ageCheck: attempt.ageCheck && { result: attempt.ageCheck.result },
    })),
    signer,
    signature: signature && {
      proofId: signature.id,
      sha256: signature.sha256 as string,
      contentType: signature.contentType,
    },
    asOf: attempts.at(-1)?.timestamp ?? route.startTime,
  };
  const signatureKey =
    signature && bucketKeys.proof(ref.accountId, ref.routeId, signature.sequence, signature.id);
  const mayDraw = evidenceIsWhole(route, attempts, proofs, {
    now: Date.now(),
    retentionDays: config().proofRetentionDays,
  });
  const [served, note] = await Promise.all([
    Promise.all(available.map((proof) => serveProof(ref.accountId, ref.routeId, proof))),
    deliveryNote(ref.accountId, ref.routeId, content, { signatureKey, mayDraw }),
  ]);
  return {
    route,
    waypoint: { ...waypoint, status },
    invoice,
    attempts,
    cashRecords,
    proofs: served,
    signer,
    deliveryNote: note && { ...note, signatureProofId: signature?.id },
  };
}

/**
 * The signer, from the latest attempt naming one, and the signature the note shows: the latest AVAILABLE
 * signature proof that attempt names, else the waypoint's latest AVAILABLE one (an app may upload a signature
 * without naming it).
 */
function signatureOf(
  attempts: readonly Attempt[],
  available: readonly Proof[],
): { signer?: Signer; signature?: Proof } {
  const signed = attempts.findLast((attempt) => attempt.signerName !== undefined);
  const signatures = available.filter((proof) => proof.type === 'SIGNATURE');
  const signature =
    (signed && signatures.findLast((proof) => proof.attemptId === signed.id)) ?? signatures.at(-1);
  const signer =
    signed?.signerName === undefined
      ? undefined
      : { name: signed.signerName, attemptId: signed.id, timestamp: signed.timestamp };
  return { signer, signature };
}
