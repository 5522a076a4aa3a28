import { type DriverLocation, updateLatestLocation } from '../data/drivers';

export type { DriverLocation };

import { appendTracePoint } from '../data/location-trace';
import { takePingRefresh } from '../data/route-etas';
import type { DriverCaller } from '../shared/auth-context';
import { InvalidDriverTokenError } from '../shared/errors';
import { detectVisits } from './arrivals';
import { forgetDriverToken } from './driver-auth';
import { PING_REFRESH_INTERVAL_MS, refreshEtas } from './route-etas';

/**
 * A location ping from the driver app: kept as the latest unless a newer one is stored, and appended to
 * the driver's trace. The update is conditional on the driver item still holding the caller's token, which
 * is what lets this endpoint trust a cached token lookup; the trace point is only written once that check
 * passed. Then, at once: the trace point; the ETAs of the driver's started routes, each refreshed at most
 * once a minute by a ping that is the driver's newest; and arrival detection on those routes (./arrivals.ts),
 * for every ping, late ones included: it judges by the pings' own timestamps.
 */
export async function reportLocation(driver: DriverCaller, point: DriverLocation): Promise<void> {
  const update = await updateLatestLocation(driver, point);
  if (update.outcome === 'not_this_driver') {
    forgetDriverToken(driver.loginToken);
    throw new InvalidDriverTokenError();
  }
  const routeIds = update.driver.startedRouteIds;
  const now = Date.now();
  await Promise.all([
    appendTracePoint(driver, point),
    ...(update.outcome === 'older'
      ? []
      : routeIds.map((routeId) => refreshOnPing(driver, routeId, point, now))),
    detectVisits(update.driver, point, now),
  ]);
}

async function refreshOnPing(driver: DriverCaller, routeId: string, point: DriverLocation, now: number) {
  if (await takePingRefresh(driver.accountId, routeId, now, now - PING_REFRESH_INTERVAL_MS)) {
    await refreshEtas(
      { accountId: driver.accountId, routeId },
      { at: point.timestamp, origin: { latitude: point.latitude, longitude: point.longitude } },
    );
  }
}
