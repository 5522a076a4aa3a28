import { tokenInUse } from '../data/driver-tokens';
import type { Driver } from '../data/drivers';
import * as driversTable from '../data/drivers';
import {
  getRouteHeader,
  listActiveRoutesOfDriver,
  type RouteHeader,
  replaceRouteHeader,
  scanAssignedUnfinishedRoutes,
} from '../data/routes';
import { sha256Hex } from '../shared/crypto';
import { ConflictError, NotFoundError } from '../shared/errors';
import { inParallel } from '../shared/parallel';
import { newLoginToken, requireStrongLoginToken } from './login-tokens';

export type { Driver };

export interface DriverRef {
  accountId: string;
  dcId: string;
  driverId: string;
}

/**
 * Creates a driver; a login token is generated (32 CSPRNG bytes) when the client sends none, and one the
 * client chose must be strong (1006). The token is claimed in the same transaction (2002 when another
 * driver, of any account, holds it).
 */
export async function createDriver(
  ref: DriverRef,
  input: { name: string; loginToken?: string },
): Promise<Driver> {
  if (input.loginToken !== undefined) {
    await requireStrongLoginToken(input.loginToken, { ...ref, driverName: input.name });
  }
  const now = Date.now();
  const driver: Driver = {
    ...ref,
    name: input.name,
    loginToken: input.loginToken ?? newLoginToken(),
    startedRouteIds: [],
    assignedRouteIds: [],
    routesVersion: 0,
    recentVisits: [],
    visitsVersion: 0,
    createdAt: now,
    updatedAt: now,
  };
  // Read first for drivers created before tokens were claimed: they hold theirs by a lookup item, which the
  // claim's condition does not see. (No driver gets such an item any more, so the read cannot go stale.)
  if (input.loginToken !== undefined && (await tokenInUse(sha256Hex(input.loginToken)))) {
    throw tokenTaken();
  }
  const outcome = await driversTable.insertDriver(driver);
  if (outcome === 'id_taken') {
    throw new ConflictError(
      'DRIVER_EXISTS',
      `driver_id: a driver with id '${ref.driverId}' already exists in DC '${ref.dcId}'`,
    );
  }
  if (outcome === 'token_taken') throw tokenTaken();
  return driver;
}

export async function requireDriver(ref: DriverRef): Promise<Driver> {
  const driver = await driversTable.getDriver(ref.accountId, ref.dcId, ref.driverId);
  if (!driver) throw driverNotFound(ref);
  return driver;
}

/** How often a driver change re-reads and retries after another writer changed the driver in between. */
const MAX_ATTEMPTS = 5;

/**
 * Renames the driver and/or gives it another login token (claimed; the old one is freed at once). A new
 * token must be strong (1006); sending the token the driver holds changes nothing, so a token set before
 * tokens had to be strong keeps working.
 */
export async function updateDriver(
  ref: DriverRef,
  input: { name?: string; loginToken?: string },
): Promise<Driver> {
  const { name, loginToken } = input;
  let strengthChecked = false;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const driver = await requireDriver(ref);
    if (loginToken === undefined || loginToken === driver.loginToken) {
      if (name === undefined) return driver;
      const renamed = await driversTable.renameDriver(
        ref.accountId,
        ref.dcId,
        ref.driverId,
        name,
        Date.now(),
      );
      if (!renamed) throw driverNotFound(ref);
      return renamed;
    }
    if (!strengthChecked) {
      await requireStrongLoginToken(loginToken, { ...ref, driverName: name ?? driver.name });
      strengthChecked = true;
    }
    if (await tokenInUse(sha256Hex(loginToken))) throw tokenTaken();
    const changed = await driversTable.changeDriverToken(driver, loginToken, name, Date.now());
    if (changed.outcome === 'updated') return changed.driver;
    if (changed.outcome === 'token_taken') throw tokenTaken();
  }
  throw new Error(`driver '${ref.driverId}' kept changing under ${MAX_ATTEMPTS} attempts to update it`);
}

/**
 * Deletes a driver that has no active (or started) routes; its login token stops working at once and can
 * be claimed again. Its other unfinished routes (assigned but not active) are left without a driver, in
 * the same transaction, so no route names a driver that no longer exists.
 *
 * The deletion is conditional on the driver's route sets being those read (their version), and every
 * assignment changes them in a transaction conditional on the driver existing: the two are ordered on the
 * driver item. Routes assigned before the sets existed are found by the active-routes index.
 */
export async function deleteDriver(ref: DriverRef): Promise<void> {
  for (let failures = 0; ; ) {
    const driver = await requireDriver(ref);
    if (driver.startedRouteIds.length > 0) throw hasActiveRoutes(ref);
    const active = await listActiveRoutesOfDriver(ref.accountId, ref.dcId, ref.driverId, { limit: 1 });
    if (active.length > 0) throw hasActiveRoutes(ref);
    const held = await heldRoutes(driver);
    if (held.some((route) => route.isActive || route.startedTimestamp !== undefined))
      throw hasActiveRoutes(ref);

    const written = await driversTable.deleteDriver(driver, held);
    if (written === 'deleted') return;
    // Too many routes for one transaction: a batch of them is off the driver. Look again.
    if (written === 'released') continue;
    // A condition failed: the driver changed (a route assigned, started or finished, its token), one of
    // its routes changed, or the driver is gone. Look again.
    if (++failures >= MAX_ATTEMPTS) {
      throw new Error(`driver '${ref.driverId}' kept changing under ${MAX_ATTEMPTS} attempts to delete it`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * failures));
  }
}

/** The headers of the routes in the driver's assigned set that still name it, unfinished and not being deleted. */
async function heldRoutes(driver: Driver): Promise<RouteHeader[]> {
  const headers = await inParallel(driver.assignedRouteIds, 10, (routeId) =>
    getRouteHeader(driver.accountId, routeId),
  );
  return headers.filter(
    (route): route is RouteHeader =>
      !!route &&
      route.dcId === driver.dcId &&
      route.assignedDriverId === driver.driverId &&
      !route.isFinalized &&
      !route.deleting,
  );
}

/**
 * One-off and idempotent (the operator's `backfill-driver-routes`): puts the unfinished routes assigned
 * before drivers kept their route sets into their driver's sets, so deleting the driver sees them. A route
 * whose driver no longer exists loses its driver (a started one is left as it is, and counted).
 */
export async function backfillDriverRouteSets(): Promise<{
  added: number;
  unassigned: number;
  left: number;
}> {
  const counts = { added: 0, unassigned: 0, left: 0 };
  for await (const page of scanAssignedUnfinishedRoutes()) {
    await inParallel(page, 10, async (scanned) => {
      let route: RouteHeader | undefined = scanned;
      for (let attempt = 1; route && attempt <= MAX_ATTEMPTS; attempt++) {
        const outcome = await backfillRoute(route);
        if (outcome !== 'changed') {
          counts[outcome]++;
          return;
        }
        route = await getRouteHeader(route.accountId, route.routeId);
        if (!route?.assignedDriverId || route.isFinalized || route.deleting) return;
      }
      if (route) throw new Error(`route '${route.routeId}' kept changing during the backfill`);
    });
  }
  return counts;
}

async function backfillRoute(route: RouteHeader): Promise<'added' | 'unassigned' | 'left' | 'changed'> {
  const outcome = await driversTable.addRouteToSets(route);
  if (outcome !== 'driver_gone') return outcome;
  if (route.startedTimestamp !== undefined) return 'left';
  const unassigned = { ...route, assignedDriverId: undefined, version: route.version + 1 };
  return (await replaceRouteHeader(unassigned, route.version)) ? 'unassigned' : 'changed';
}

export async function activeRoutesOf(ref: DriverRef) {
  await requireDriver(ref);
  return listActiveRoutesOfDriver(ref.accountId, ref.dcId, ref.driverId);
}

export const listDrivers = driversTable.listDrivers;

function hasActiveRoutes(ref: DriverRef): ConflictError {
  return new ConflictError(
    'DRIVER_HAS_ACTIVE_ROUTES',
    `driver '${ref.driverId}' has active routes; finish or reassign them first`,
  );
}

/** Says nothing of who holds the token: not the account, the DC nor the driver. */
function tokenTaken(): ConflictError {
  return new ConflictError('LOGIN_TOKEN_TAKEN', 'login_token: this token is already in use; choose another');
}

function driverNotFound(ref: DriverRef): NotFoundError {
  return new NotFoundError(`driver '${ref.driverId}' not found in DC '${ref.dcId}'`);
}
