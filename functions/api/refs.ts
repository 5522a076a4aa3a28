import type { DriverRef } from '../domain/drivers';
import type { RouteRef } from '../domain/routes';
import type { AccountCaller } from '../shared/auth-context';

/** The route a request's path names (`{dc_id}`, `{route_id}`), in the caller's account. */
export const routeRef = (caller: AccountCaller, params: { dc_id: string; route_id: string }): RouteRef => ({
  accountId: caller.accountId,
  dcId: params.dc_id,
  routeId: params.route_id,
});

/** The driver a request's path names (`{dc_id}`, `{driver_id}`), in the caller's account. */
export const driverRef = (
  caller: AccountCaller,
  params: { dc_id: string; driver_id: string },
): DriverRef => ({
  accountId: caller.accountId,
  dcId: params.dc_id,
  driverId: params.driver_id,
});
