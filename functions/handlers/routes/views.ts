import type { RouteHeader, WaypointRow } from '../../domain/routes';

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

/** The Waypoint resource; absent optional fields are null, never missing. */
export function waypointView(waypoint: WaypointRow) {
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
  };
}
