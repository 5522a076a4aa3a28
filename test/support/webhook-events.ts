import { expect } from 'vitest';
import * as drivers from '../../functions/api/drivers/index';
import { attemptPath } from './driver-app';
import { type ApiResponse, expectSuccess } from './http';
import { scanItems } from './table-scans';
import type { useWebhookApi } from './webhooks';

/** The pieces test/e2e/webhook-events.test.ts's two groups share: the route's event items, a driver, a visit. */

type AsDriver = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;

/** The event items written for a route, read straight from the table. */
export async function routeEventItems(
  tableName: string,
  accountId: string,
  routeId: string,
): Promise<Record<string, unknown>[]> {
  return scanItems({ entity: 'EVENT', account_id: accountId, route_id: routeId }, tableName);
}

/** Creates a driver of the account in dc-1 who logs in with `token`. */
export async function createDriverWithToken(
  hooks: ReturnType<typeof useWebhookApi>,
  driverId: string,
  driverName: string,
  token: string,
): Promise<void> {
  const created = await hooks.asAccount('POST', '/dcs/dc-1/drivers', {
    driver_id: driverId,
    driver_name: driverName,
    login_token: token,
  });
  expectSuccess(created, drivers.createDriver);
}

/** Records a SUCCESSFUL visit at the waypoint, where it is, as the route's driver: answered 200. */
export async function recordVisit(
  asDriver: AsDriver,
  routeId: string,
  waypoint: { id: string; location: unknown },
  attemptId: string,
  timestamp: number,
): Promise<void> {
  const response = await asDriver('POST', attemptPath(routeId, waypoint.id), {
    id: attemptId,
    timestamp,
    status: 'SUCCESSFUL',
    location: waypoint.location,
  });
  expect(response.status, response.text).toBe(200);
}
