import type { AccountingRecord, Attempt, InvoiceRow, ItemRow } from '../../domain/records';
import type { WaypointDetail } from '../../domain/route-reports';
import type { RouteHeader } from '../../domain/routes';

/** The Route resource; absent optional fields are null, never missing. */
export function routeView(route: RouteHeader) {
  return {
    id: route.routeId,
    name: route.name,
    assigned_driver_id: route.assignedDriverId ?? null,
    start_time: route.startTime,
    start_warehouse_id: route.startWarehouse?.id ?? null,
    end_warehouse_id: route.endWarehouse?.id ?? null,
    vehicle_id: route.vehicleId ?? null,
    version: route.version,
    waypoint_ids: route.waypointIds,
    is_active: route.isActive,
    is_finalized: route.isFinalized,
    started_timestamp: route.startedTimestamp ?? null,
    finalized_timestamp: route.finalizedTimestamp ?? null,
  };
}

export function attemptView(attempt: Attempt) {
  return {
    id: attempt.id,
    timestamp: attempt.timestamp,
    status: attempt.status,
    reason: attempt.reason ?? null,
    location: attempt.location
      ? { latitude: attempt.location.latitude, longitude: attempt.location.longitude }
      : null,
    items: attempt.items.map((item) => ({ id: item.id, status: item.status, reason: item.reason ?? null })),
    driver_id: attempt.driverId,
  };
}

/** The Waypoint resource; absent optional fields are null, never missing. */
export function waypointView(waypoint: WaypointDetail) {
  return {
    id: waypoint.id,
    sequence: waypoint.sequence,
    customer_id: waypoint.customerId ?? null,
    name: waypoint.name ?? null,
    address: waypoint.address ?? null,
    location: { latitude: waypoint.location.latitude, longitude: waypoint.location.longitude },
    service_time_minutes: waypoint.serviceTimeMinutes,
    time_windows: waypoint.timeWindows.map((window) => ({ start: window.start, end: window.end })),
    invoice_ids: waypoint.invoiceIds,
    status: waypoint.status,
    eta: waypoint.eta,
    attempts: waypoint.attempts.map(attemptView),
  };
}

/** The spec's invoice status record. */
export function invoiceStatusView(invoice: InvoiceRow) {
  return {
    id: invoice.id,
    payment_method: invoice.paymentMethod ?? null,
    invoice_name_attributes: invoice.nameAttributes,
    items: invoice.items.map(itemStatusView),
  };
}

/** An item of the invoice status record, with its latest status. */
export function itemStatusView(item: ItemRow) {
  return {
    id: item.id,
    sku: item.sku ?? null,
    name: item.name ?? null,
    quantity: item.quantity,
    total_price_cents: item.totalPriceCents,
    currency: item.currency,
    status: item.status ?? null,
  };
}

/** The spec's route accounting record. */
export function accountingRecordView(record: AccountingRecord) {
  return {
    id: record.id,
    driver_id: record.driverId,
    cash_received_cents: record.cashReceivedCents,
    cash_container_id: record.cashContainerId,
  };
}
