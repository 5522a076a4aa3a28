/** Route import bodies for the bench: local/sample-route.ts with every item field set. */
import { type SampleRoute, sampleRoute } from '../local/sample-route';

export interface RouteShape {
  waypoints: number;
  invoicesPerWaypoint: number;
  itemsPerInvoice: number;
}

export type BenchRoute = SampleRoute;

export function benchRoute(id: string, shape: RouteShape, startTime?: number): BenchRoute {
  return sampleRoute(id, { ...shape, startTime });
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
