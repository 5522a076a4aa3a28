/** Route import bodies for the bench: local/app/sample-route.ts with every item field set. */
import { claimsOf } from '../functions/domain/route-ids';
import { type SampleRoute, sampleRoute } from '../local/app/sample-route';

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

/** The ids an import claims, in the order the worker takes them. */
export { claimsOf };
