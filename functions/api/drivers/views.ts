import type { Driver } from '../../domain/drivers';
import type { DriverLocation } from '../../domain/locations';
import { apiFields } from '../../shared/field-names';

/** The spec's driver resource. */
export function driverView(driver: Driver) {
  return { id: driver.driverId, ...apiFields(driver, ['name', 'loginToken']) };
}

/** The spec's `driver_location`: null until the driver has reported one. */
export function driverLocationView(driver: Driver) {
  const { location } = driver;
  return location
    ? {
        timestamp: location.timestamp,
        location: { latitude: location.latitude, longitude: location.longitude },
      }
    : null;
}

/** A ping of the driver's trace, as the location history answers it. */
export const tracePointView = (point: DriverLocation) => ({
  timestamp: point.timestamp,
  location: { latitude: point.latitude, longitude: point.longitude },
});
