import type { Item } from '../data/client';
import { getWaypointRow, type WaypointRow } from '../data/route-rows';
import { type RouteHeader, waypointSequenceOf } from '../data/routes';
import { type EncryptionContext, openSecret, type SealedSecret, sealSecrets } from '../data/secret-envelope';
import { getStopPin, listStopPins, replaceStopPin, type StopPin, stopPinItem } from '../data/stop-pins';
import { type Applied, appliedRequirements } from '../models/delivery-requirements';
import { ConflictError } from '../shared/errors';
import { quote } from '../shared/quote';
import type { StopPinContext } from '../shared/resources';
import { drawPinCode, hashPin } from './pin-checks';
import { pauseBeforeRetry, type RouteRef, rejectFinalized, requireRoute } from './routes';

/**
 * Stop PINs drawn, sealed and shown (docs/architecture.md, Decisions: "A stop's PIN is a hash for the check,
 * sealed for the pages that show it"). The attempt checks a code against its HMAC alone (./pin-checks.ts);
 * the code itself is kept only sealed under the service's secrets key, with the route as encryption context,
 * and opened only where it is shown: the stop's tracking page and ROUTE_STARTED. The functions that draw
 * codes (the import worker, the reset) may only seal, those that show them only open, the driver app's
 * attempt neither (ResourceAccess.stopPins).
 */

/** The route a sealed PIN belongs to: KMS opens its data key under this context only. */
const pinContext = (accountId: string, routeId: string): EncryptionContext =>
  ({ account_id: accountId, route_id: routeId }) satisfies StopPinContext;

/** A waypoint that needs a PIN drawn, and the draw it is (1 for its first code). */
interface PinDraw {
  waypointId: string;
  sequence: number;
  draw: number;
}

/**
 * New codes for these waypoints of the route, hashed for the check and sealed under one data key (one KMS
 * GenerateDataKey call for all of them); the codes in plain text beside them, for the answer of a reset only.
 */
async function drawPins(
  accountId: string,
  routeId: string,
  draws: readonly PinDraw[],
): Promise<{ pin: StopPin; code: string }[]> {
  if (draws.length === 0) return [];
  const codes = draws.map(() => drawPinCode());
  const sealed = await sealSecrets(codes, pinContext(accountId, routeId));
  const drawnAt = Date.now();
  return draws.map((draw, index) => {
    const code = codes[index] as string;
    return {
      pin: { ...draw, ...hashPin(code), sealed: sealed[index] as SealedSecret, tries: 0, drawnAt },
      code,
    };
  });
}

const requiresPin = (defaults: Applied | undefined, waypoint: WaypointRow) =>
  appliedRequirements(defaults, waypoint.requirements).pin;

/**
 * The PIN items of an imported route's waypoints that require one (their own rule, else the DC's default), to
 * write with its rows: before its header, so no stop ever requires a PIN it does not have.
 */
export async function importedPinItems(
  header: Pick<RouteHeader, 'accountId' | 'routeId' | 'defaultRequirements'>,
  waypoints: readonly WaypointRow[],
): Promise<Item[]> {
  const { accountId, routeId } = header;
  const draws = waypoints
    .filter((waypoint) => requiresPin(header.defaultRequirements, waypoint))
    .map((waypoint) => ({ waypointId: waypoint.id, sequence: waypoint.sequence, draw: 1 }));
  return (await drawPins(accountId, routeId, draws)).map(({ pin }) => stopPinItem(accountId, routeId, pin));
}

/**
 * What a revision does to the route's PINs, as items: a PIN drawn for each waypoint that requires one
 * afterwards and has none (an added waypoint, a rule added), and the PIN of each waypoint that is removed or
 * no longer requires one, to delete (as stored, so a rollback puts it back). A kept PIN keeps its code: its
 * customer may have it already.
 */
export async function revisedPinItems(
  next: Pick<RouteHeader, 'accountId' | 'routeId' | 'defaultRequirements'>,
  waypointsAfter: readonly WaypointRow[],
): Promise<{ drawn: Item[]; dropped: Item[] }> {
  const { accountId, routeId } = next;
  const stored = await listStopPins(accountId, routeId);
  const required = waypointsAfter.filter((waypoint) => requiresPin(next.defaultRequirements, waypoint));
  const requiredSequences = new Set(required.map((waypoint) => waypoint.sequence));
  const storedSequences = new Set(stored.map(({ pin }) => pin.sequence));
  const draws = required
    .filter((waypoint) => !storedSequences.has(waypoint.sequence))
    .map((waypoint) => ({ waypointId: waypoint.id, sequence: waypoint.sequence, draw: 1 }));
  const drawn = await drawPins(accountId, routeId, draws);
  return {
    drawn: drawn.map(({ pin }) => stopPinItem(accountId, routeId, pin)),
    dropped: stored.filter(({ pin }) => !requiredSequences.has(pin.sequence)).map(({ item }) => item),
  };
}

/** The code of a stored PIN, opened with KMS (its data key is cached a few minutes per process). */
export const openPin = (accountId: string, routeId: string, pin: StopPin): Promise<string> =>
  openSecret(pin.sealed, pinContext(accountId, routeId));

/** The code of the route's waypoint of this sequence; null when it has no PIN. */
export async function pinOfWaypoint(accountId: string, routeId: string, sequence: number) {
  const pin = await getStopPin(accountId, routeId, sequence);
  return pin ? openPin(accountId, routeId, pin) : null;
}

/** The codes of the route's PINs, by waypoint id: what ROUTE_STARTED carries for the ERP. */
export async function pinsOfRoute(accountId: string, routeId: string): Promise<Map<string, string>> {
  const stored = await listStopPins(accountId, routeId);
  const codes = await Promise.all(stored.map(({ pin }) => openPin(accountId, routeId, pin)));
  return new Map(stored.map(({ pin }, index) => [pin.waypointId, codes[index] as string]));
}

/** How often a reset reads again after the route or the PIN changed under it. */
const MAX_RESET_ATTEMPTS = 5;

/**
 * Draws a new code for a waypoint that requires a PIN and returns it (the dispatcher's reset, which also ends
 * a lock: the new draw has no tries). The route must be the DC's (404), not finished or being revised
 * (3012/3102), and the waypoint on it (3013) with a PIN rule (9108). Written on condition that the route and
 * the waypoint's PIN are as read.
 */
export async function resetStopPin(ref: RouteRef, waypointId: string): Promise<string> {
  for (let attempt = 1; attempt <= MAX_RESET_ATTEMPTS; attempt++) {
    await pauseBeforeRetry(attempt);
    const route = await requireRoute(ref);
    rejectFinalized(route);
    const sequence = waypointSequenceOf(route, waypointId);
    const waypoint =
      sequence === undefined ? undefined : await getWaypointRow(ref.accountId, ref.routeId, sequence);
    if (sequence === undefined || !waypoint) {
      throw new ConflictError(
        'NOT_ON_ROUTE',
        `waypoint ${quote(waypointId)} is not on route ${quote(ref.routeId)}`,
      );
    }
    if (!requiresPin(route.defaultRequirements, waypoint)) {
      throw new ConflictError(
        'PIN_NOT_REQUIRED',
        `waypoint ${quote(waypointId)} requires no PIN (its requirements.pin is false)`,
      );
    }
    const current = await getStopPin(ref.accountId, ref.routeId, sequence);
    const [drawn] = await drawPins(ref.accountId, ref.routeId, [
      { waypointId, sequence, draw: (current?.draw ?? 0) + 1 },
    ]);
    if (!drawn) throw new Error('no PIN was drawn');
    const outcome = await replaceStopPin(route, drawn.pin, current?.draw);
    if (outcome === 'written') return drawn.code;
  }
  throw new Error(`route '${ref.routeId}' kept changing under ${MAX_RESET_ATTEMPTS} attempts to reset a PIN`);
}
