import type { DriverRef } from '../domain/drivers';
import type { RouteRef } from '../domain/routes';
import type { AccountCaller } from '../shared/auth-context';

/** The DC a request's path names (`{dc_id}`), in the caller's account. */
export const dcRef = (
  caller: AccountCaller,
  params: { dc_id: string },
): { accountId: string; dcId: string } => ({
  accountId: caller.accountId,
  dcId: params.dc_id,
});

/** The route a request's path names (`{dc_id}`, `{route_id}`), in the caller's account. */
export const routeRef = (caller: AccountCaller, params: { dc_id: string; route_id: string }): RouteRef => ({
  ...dcRef(caller, params),
  routeId: params.route_id,
});

/** The driver a request's path names (`{dc_id}`, `{driver_id}`), in the caller's account. */
export const driverRef = (
  caller: AccountCaller,
  params: { dc_id: string; driver_id: string },
): DriverRef => ({
  ...dcRef(caller, params),
  driverId: params.driver_id,
});
