import { type DriverLocation, updateLatestLocation } from '../data/drivers';
import { appendTracePoint } from '../data/location-trace';
import { takePingRefresh } from '../data/route-etas';
import type { DriverCaller } from '../shared/auth-context';
import { PING_REFRESH_INTERVAL_MS, refreshEtas } from './route-etas';

/**
 * A location ping from the driver app: appended to the driver's trace (for analytics) and kept as the
 * latest unless a newer one is stored. A ping that is the driver's newest refreshes the ETAs of the
 * driver's started routes, each at most once a minute.
 */
export async function reportLocation(driver: DriverCaller, point: DriverLocation): Promise<void> {
  const [updated] = await Promise.all([updateLatestLocation(driver, point), appendTracePoint(driver, point)]);
  if (!updated || updated.startedRouteIds.length === 0) return;
  const now = Date.now();
  await Promise.all(
    updated.startedRouteIds.map(async (routeId) => {
      if (await takePingRefresh(driver.accountId, routeId, now, now - PING_REFRESH_INTERVAL_MS)) {
        await refreshEtas(
          { accountId: driver.accountId, routeId },
          { at: point.timestamp, origin: { latitude: point.latitude, longitude: point.longitude } },
        );
      }
    }),
  );
}
