/** Route import bodies for the bench (local/app/sample-route.ts with every item field set), and importing one. */
import { setTimeout as sleep } from 'node:timers/promises';
import { claimsOf } from '../functions/domain/route-ids';
import { type SampleRoute, sampleRoute } from '../local/app/sample-route';
import type { ApiClient, ExpectStatus } from './http';

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

/**
 * A driver of the DC with their login token, and their route imported through the API: returns once the
 * import ended (its status polled every 100 ms). Unexpected answers go to `expectOk`.
 */
export async function importDriverRoute(
  api: ApiClient,
  expectOk: ExpectStatus,
  driver: { dcId: string; id: string; token: string; route: unknown },
): Promise<void> {
  const dc = encodeURIComponent(driver.dcId);
  expectOk(
    'POST drivers',
    await api.post(
      `/dcs/${dc}/drivers`,
      JSON.stringify({ driver_id: driver.id, driver_name: driver.id, login_token: driver.token }),
    ),
  );
  const accepted = expectOk(
    'POST invoiced-routes',
    await api.post(`/dcs/${dc}/invoiced-routes`, JSON.stringify({ route: driver.route })),
    202,
  );
  const txid = (accepted.body as { data?: { txid?: string } }).data?.txid;
  for (let polls = 0; txid; polls++) {
    const status = await api.get(`/dcs/${dc}/routes/import-status/${encodeURIComponent(txid)}`);
    if (status.status === 200) break;
    if (status.status !== 202 || polls > 3000) {
      expectOk('import-status', status);
      break;
    }
    await sleep(100);
  }
}
