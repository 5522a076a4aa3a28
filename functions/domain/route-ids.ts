import type { Claim } from '../data/claims';

/** The ids of a route body, shaped like the import model (the parsed model or a client's body alike). */
interface RouteIds {
  id: string;
  waypoints: readonly {
    id: string;
    invoices?: readonly { id: string; items: readonly { id: string }[] }[];
  }[];
}

/** Every id an import of the route claims, in the order the worker takes them: route, waypoints, then invoices each with its items. */
export function claimsOf(route: RouteIds): Claim[] {
  const claims: Claim[] = [{ kind: 'ROUTE', id: route.id }];
  for (const waypoint of route.waypoints) claims.push({ kind: 'WAYPOINT', id: waypoint.id });
  for (const waypoint of route.waypoints) {
    for (const invoice of waypoint.invoices ?? []) {
      claims.push({ kind: 'INVOICE', id: invoice.id });
      for (const item of invoice.items) claims.push({ kind: 'ITEM', id: item.id });
    }
  }
  return claims;
}
