import type { Driver } from '../data/drivers';
import * as driversTable from '../data/drivers';
import { listActiveRoutesOfDriver } from '../data/routes';
import { randomSecret, SECRET_PREFIX } from '../shared/crypto';
import { ConflictError, NotFoundError } from '../shared/errors';
import { finishRoutesOfDriver } from './route-lifecycle';

export type { Driver };

export interface DriverRef {
  accountId: string;
  dcId: string;
  driverId: string;
}

/** Creates a driver; a login token is generated (32 CSPRNG bytes) when the client sends none. */
export async function createDriver(
  ref: DriverRef,
  input: { name: string; loginToken?: string },
): Promise<Driver> {
  const now = Date.now();
  const driver: Driver = {
    ...ref,
    name: input.name,
    loginToken: input.loginToken ?? randomSecret(SECRET_PREFIX.driverToken),
    startedRouteIds: [],
    createdAt: now,
    updatedAt: now,
  };
  if (!(await driversTable.insertDriver(driver))) {
    throw new ConflictError(
      'DRIVER_EXISTS',
      `driver_id: a driver with id '${ref.driverId}' already exists in DC '${ref.dcId}'`,
    );
  }
  return driver;
}

export async function requireDriver(ref: DriverRef): Promise<Driver> {
  const driver = await driversTable.getDriver(ref.accountId, ref.dcId, ref.driverId);
  if (!driver) throw driverNotFound(ref);
  return driver;
}

export async function renameDriver(ref: DriverRef, name: string): Promise<Driver> {
  const driver = await driversTable.renameDriver(ref.accountId, ref.dcId, ref.driverId, name, Date.now());
  if (!driver) throw driverNotFound(ref);
  return driver;
}

/** Deletes a driver that has no active routes; its login token stops working at once. */
export async function deleteDriver(ref: DriverRef): Promise<void> {
  const driver = await requireDriver(ref);
  const active = await listActiveRoutesOfDriver(ref.accountId, ref.dcId, ref.driverId, { limit: 1 });
  if (active.length > 0 || driver.startedRouteIds.length > 0) throw hasActiveRoutes(ref);
  if (!(await driversTable.deleteDriver(driver))) {
    // Its condition failed: the driver is gone, or started a route since the check above.
    if (await driversTable.getDriver(ref.accountId, ref.dcId, ref.driverId)) throw hasActiveRoutes(ref);
    throw driverNotFound(ref);
  }
}

export async function activeRoutesOf(ref: DriverRef) {
  await requireDriver(ref);
  return listActiveRoutesOfDriver(ref.accountId, ref.dcId, ref.driverId);
}

/** Finalizes every active or started route of the driver; returns the ids this call finalized. */
export async function finishDriverRoutes(ref: DriverRef): Promise<string[]> {
  return finishRoutesOfDriver(await requireDriver(ref), Date.now());
}

export const listDrivers = driversTable.listDrivers;

function hasActiveRoutes(ref: DriverRef): ConflictError {
  return new ConflictError(
    'DRIVER_HAS_ACTIVE_ROUTES',
    `driver '${ref.driverId}' has active routes; finish or reassign them first`,
  );
}

function driverNotFound(ref: DriverRef): NotFoundError {
  return new NotFoundError(`driver '${ref.driverId}' not found in DC '${ref.dcId}'`);
}
