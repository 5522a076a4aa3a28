import type { InvoiceEvidence } from '../../domain/evidence';
import type { ServedProof } from '../../domain/proofs';
import type { AccountingRecord, Attempt, InvoiceRow, ItemRow } from '../../domain/records';
import type { RouteWaypoint, WaypointDetail } from '../../domain/route-reports';
import type { RouteHeader } from '../../domain/routes';
import { type Applied, NO_REQUIREMENTS } from '../../models/delivery-requirements';
import { apiFields } from '../../shared/field-names';

/** The Route resource; absent optional fields are null, never missing. */
export function routeView(route: RouteHeader) {
  return {
    id: route.routeId,
    ...apiFields(route, ['name', 'assignedDriverId', 'startTime']),
    start_warehouse_id: route.startWarehouse?.id ?? null,
    end_warehouse_id: route.endWarehouse?.id ?? null,
    ...apiFields(route, [
      'vehicleId',
      'version',
      'waypointIds',
      'isActive',
      'isFinalized',
      'startedTimestamp',
      'finalizedTimestamp',
    ]),
  };
}

/** A location as the spec orders it (a stored map's keys come back in any order). */
const locationView = (location: { latitude: number; longitude: number }) => ({
  latitude: location.latitude,
  longitude: location.longitude,
});

export function attemptView(attempt: Attempt) {
  return {
    ...apiFields(attempt, ['id', 'timestamp', 'status', 'reason']),
    location: attempt.location ? locationView(attempt.location) : null,
    items: attempt.items.map((item) => apiFields(item, ['id', 'status', 'reason'])),
    proof_ids: attempt.proofIds,
    signer_name: attempt.signerName ?? null,
    scans: (attempt.scans ?? []).map((scan) => ({
      value: scan.value,
      timestamp: scan.timestamp,
      item_id: scan.item_id ?? null,
      matched_item_id: scan.matched_item_id ?? null,
    })),
    requirements: requirementsView(attempt.rules ?? NO_REQUIREMENTS),
    pin_verified: attempt.pinVerified ?? false,
    age_check: attempt.ageCheck
      ? {
          method: attempt.ageCheck.method,
          result: attempt.ageCheck.result,
          timestamp: attempt.ageCheck.timestamp,
        }
      : null,
    driver_id: attempt.driverId,
  };
}

/** Delivery rules in the schema's order (a stored map's keys come back in any order). */
export const requirementsView = (rules: Applied) => ({
  photos: rules.photos,
  signature: rules.signature,
  pin: rules.pin,
  minimum_age: rules.minimum_age,
  scan_items: rules.scan_items,
});

/** The Waypoint resource; absent optional fields are null, never missing. */
export function waypointView(waypoint: WaypointDetail) {
  return {
    ...apiFields(waypoint, ['id', 'sequence', 'customerId', 'name', 'address']),
    location: locationView(waypoint.location),
    service_time_minutes: waypoint.serviceTimeMinutes,
    time_windows: waypoint.timeWindows.map((window) => ({ start: window.start, end: window.end })),
    ...apiFields(waypoint, ['invoiceIds', 'status', 'eta']),
    requirements: requirementsView(waypoint.rules),
    attempts: waypoint.attempts.map(attemptView),
    arrived_timestamp: waypoint.visits.at(-1)?.arrivedAt ?? null,
    departed_timestamp: waypoint.visits.at(-1)?.departedAt ?? null,
    visits: waypoint.visits.map((visit) => ({
      arrived_timestamp: visit.arrivedAt,
      departed_timestamp: visit.departedAt ?? null,
    })),
  };
}

/** A waypoint as the route reads answer it: the Waypoint resource with its tracking page. */
export function routeWaypointView(waypoint: RouteWaypoint) {
  return {
    ...waypointView(waypoint),
    tracking_url: waypoint.trackingUrl,
    recipient: waypoint.recipient?.masked ?? null,
  };
}

/** The spec's invoice status record. */
export function invoiceStatusView(invoice: InvoiceRow) {
  return {
    ...apiFields(invoice, ['id', 'paymentMethod']),
    invoice_name_attributes: invoice.nameAttributes,
    items: invoice.items.map(itemStatusView),
  };
}

/** An item of the invoice status record, with its latest status. */
export function itemStatusView(item: ItemRow) {
  return {
    ...apiFields(item, [
      'id',
      'sku',
      'name',
      'quantity',
      'displayUnitOfMeasure',
      'totalPriceCents',
      'currency',
    ]),
    barcodes: item.barcodes ?? [],
    status: item.status ?? null,
  };
}

/** The spec's route accounting record. */
export function accountingRecordView(record: AccountingRecord) {
  return apiFields(record, ['id', 'driverId', 'cashReceivedCents', 'cashContainerId']);
}

/** A proof as the dispatcher reads it; a download link only while it is AVAILABLE. */
export function proofView({ proof, download }: ServedProof) {
  return {
    ...apiFields(proof, ['id', 'type', 'status', 'contentType', 'sizeBytes', 'sha256']),
    uploaded_timestamp: proof.uploadedAt ?? null,
    attempt_id: proof.attemptId ?? null,
    download_link: download?.url ?? null,
    expiration_timestamp: download?.expiresAt ?? null,
  };
}

/** The evidence of an invoice: its parts as the other reads answer them. */
export function evidenceView(evidence: InvoiceEvidence) {
  const { waypoint, signer, deliveryNote } = evidence;
  return {
    route: routeView(evidence.route),
    waypoint: {
      ...apiFields(waypoint, ['id', 'sequence', 'customerId', 'name', 'address']),
      location: locationView(waypoint.location),
      status: waypoint.status,
    },
    invoice: invoiceStatusView(evidence.invoice),
    attempts: evidence.attempts.map(attemptView),
    cash_records: evidence.cashRecords.map(accountingRecordView),
    proofs: evidence.proofs.map(proofView),
    signer: signer ? { name: signer.name, attempt_id: signer.attemptId, timestamp: signer.timestamp } : null,
    delivery_note: deliveryNote
      ? {
          download_link: deliveryNote.download.url,
          expiration_timestamp: deliveryNote.download.expiresAt,
          sha256: deliveryNote.sha256,
          signature_proof_id: deliveryNote.signatureProofId ?? null,
        }
      : null,
  };
}
