/** Route import bodies for the bench (the shape of test/support/routes.ts exampleRoute, every item field set). */

export interface RouteShape {
  waypoints: number;
  invoicesPerWaypoint: number;
  itemsPerInvoice: number;
}

export interface BenchItem {
  id: string;
  sku: string;
  name: string;
  quantity: number;
  display_unit_of_measure: string;
  total_price_cents: number;
  currency: string;
}

export interface BenchRoute {
  id: string;
  name: string;
  start_time: number;
  activate_after_successful_import: boolean;
  start_warehouse: Warehouse;
  end_warehouse: Warehouse;
  vehicle: { id: string };
  waypoints: {
    id: string;
    customer_id: string;
    name: string;
    address: string;
    location: { latitude: number; longitude: number };
    service_time_minutes: number;
    time_windows: { start: number; end: number }[];
    invoices: {
      id: string;
      payment_method: string;
      invoice_name_attributes: { key: string; value: string }[];
      items: BenchItem[];
    }[];
  }[];
}

interface Warehouse {
  id: string;
  name: string;
  address: string;
  location: { latitude: number; longitude: number };
}

export function benchRoute(
  id: string,
  shape: RouteShape,
  startTime = Date.UTC(2026, 10, 23, 13, 0),
): BenchRoute {
  const warehouse: Warehouse = {
    id: 'wh-1',
    name: 'Main warehouse',
    address: '1 Dock St',
    location: { latitude: 41.85, longitude: -87.65 },
  };
  return {
    id,
    name: `Route ${id}`,
    start_time: startTime,
    activate_after_successful_import: true,
    start_warehouse: warehouse,
    end_warehouse: warehouse,
    vehicle: { id: `truck-${id}` },
    waypoints: Array.from({ length: shape.waypoints }, (_, w) => ({
      id: `${id}-wp-${w}`,
      customer_id: `customer-${w}`,
      name: `Customer ${w}`,
      address: `${w} Main St`,
      location: { latitude: 41.88 + w / 1000, longitude: -87.63 - w / 1000 },
      service_time_minutes: 10,
      time_windows: [{ start: startTime + 3_600_000, end: startTime + 7_200_000 }],
      invoices: Array.from({ length: shape.invoicesPerWaypoint }, (_, i) => ({
        id: `${id}-inv-${w}-${i}`,
        payment_method: i % 2 === 0 ? 'CASH' : 'CREDIT',
        invoice_name_attributes: [{ key: 'invoice_number', value: `INV-${w}-${i}` }],
        items: Array.from({ length: shape.itemsPerInvoice }, (_, t) => ({
          id: `${id}-item-${w}-${i}-${t}`,
          sku: `SKU-${t}`,
          name: `Product ${t}`,
          quantity: 1.5 + t,
          display_unit_of_measure: 'CASE',
          total_price_cents: 1299 + t,
          currency: 'USD',
        })),
      })),
    })),
  };
}

export const countOf = (shape: RouteShape) => {
  const invoices = shape.waypoints * shape.invoicesPerWaypoint;
  const items = invoices * shape.itemsPerInvoice;
  return { waypoints: shape.waypoints, invoices, items, rows: shape.waypoints + invoices + items };
};

export type ClaimKind = 'ROUTE' | 'WAYPOINT' | 'INVOICE' | 'ITEM';

/**
 * The ids an import claims, in the order the worker takes them (functions/domain/route-import.ts claimsOf):
 * the route, every waypoint, then each invoice followed by its items.
 */
export function claimsOf(route: BenchRoute): { kind: ClaimKind; id: string }[] {
  const claims: { kind: ClaimKind; id: string }[] = [{ kind: 'ROUTE', id: route.id }];
  for (const waypoint of route.waypoints) claims.push({ kind: 'WAYPOINT', id: waypoint.id });
  for (const waypoint of route.waypoints) {
    for (const invoice of waypoint.invoices) {
      claims.push({ kind: 'INVOICE', id: invoice.id });
      for (const item of invoice.items) claims.push({ kind: 'ITEM', id: item.id });
    }
  }
  return claims;
}

/** A claim's key, as functions/data/claims.ts writes it (that module does not export its key builder). */
export const claimKey = (accountId: string, claim: { kind: ClaimKind; id: string }) => ({
  pk: `CLAIM#${accountId}/${claim.kind}/${claim.id}`,
  sk: 'CLAIM',
});
