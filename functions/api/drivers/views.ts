import type { Driver } from '../../domain/drivers';
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
