import { getDc } from '../data/accounts';
import { type Attempt, type AttemptStatus, getAttempt, insertAttempt, type Reason } from '../data/attempts';
import { listWaypointItems } from '../data/invoice-rows';
import { getProof, type Proof } from '../data/proofs';
import { getWaypointRow } from '../data/route-rows';
import { type RouteHeader, waypointSequenceOf } from '../data/routes';
import { appliedRequirements } from '../models/delivery-requirements';
import type { DriverCaller } from '../shared/auth-context';
import { ConflictError, ValidationError } from '../shared/errors';
import { quote, quoteList } from '../shared/quote';
import { localDateOf } from '../shared/time';
import {
  type AgeCheckInput,
  checkAge,
  deliveredItemIds,
  deliversSomething,
  matchScans,
  rejectMissingEvidence,
  type ScanInput,
  type StopItem,
} from './delivery-rules';
import { checkPin } from './pin-checks';
import { refreshEtas } from './route-etas';
import { pauseBeforeRetry, rejectUnlessUnderway, requireRoute } from './routes';

export type { Attempt };

export interface AttemptInput {
  id: string;
  timestamp: number;
  status: AttemptStatus;
  reason?: Reason;
  location?: { latitude: number; longitude: number };
  items?: { id: string; status: 'SUCCESSFUL' | 'FAILED'; reason?: Reason }[];
  proofIds?: string[];
  signerName?: string;
  scans?: ScanInput[];
  /** The code the customer gave, for a stop that requires a PIN; never kept. */
  pin?: string;
  /** The recipient's ID check, for a stop with a minimum age; only its method and outcome are kept. */
  ageCheck?: AgeCheckInput;
}

/** Visits of one route recorded at once take its event sequence in turn: each round one of them wins. */
const MAX_RECORD_ATTEMPTS = 10;

/**
 * Records one visit of a waypoint by the route's driver:
 * 1. the route must be the driver's, started and not finished (404 / 3011 / 3012);
 * 2. the waypoint and every listed item must be on it (3013);
 * 3. a visit that delivers something must show what the stop's delivery rules ask for (domain/delivery-rules.ts:
 *    9100..9102, 9106, 9107); its scans are matched to the stop's items' barcodes; the age is computed on the
 *    visit's day in the DC's time zone; the customer's PIN is checked last (./pin-checks.ts: 9103..9105),
 *    since a wrong code counts toward the stop's lock, the only write a refused attempt makes;
 * 4. the attempt and WAYPOINT_STATUS_CHANGED (with the route's next event sequence) are written in one
 *    transaction, on condition that the attempt id is new, the route did not change and no other event of it
 *    took that sequence since they were read, with the waypoint's visited mark (a visited waypoint can no
 *    longer be cancelled);
 * 5. the ETAs are recomputed from the attempt's place and time.
 * The same attempt id again returns the stored attempt without writing anything (a retried call).
 */
export async function recordAttempt(
  driver: DriverCaller,
  routeId: string,
  waypointId: string,
  input: AttemptInput,
): Promise<{ attempt: Attempt; created: boolean }> {
  const ref = { ...driver, routeId };
  // Checked once: a round lost to another writer does not count the same code again.
  let pinChecked = false;
  for (let round = 1; round <= MAX_RECORD_ATTEMPTS; round++) {
    await pauseBeforeRetry(round);
    const route = await requireRoute(ref);
    const earlier = await getAttempt(driver.accountId, routeId, input.id);
    if (earlier) return { attempt: sameAttempt(earlier, waypointId), created: false };
    rejectUnlessUnderway(route);
    const sequence = waypointSequenceOf(route, waypointId);
    if (sequence === undefined) {
      throw new ConflictError(
        'NOT_ON_ROUTE',
        `waypoint ${quote(waypointId)} is not on route ${quote(routeId)}`,
      );
    }
    const waypoint = await getWaypointRow(driver.accountId, routeId, sequence);
    const rules = appliedRequirements(route.defaultRequirements, waypoint?.requirements);
    const scanInputs = input.scans ?? [];
    const needsItems = (input.items ?? []).length > 0 || scanInputs.length > 0 || rules.scan_items;
    const stopItems = needsItems ? await listWaypointItems(route, sequence) : [];
    rejectUnknownItems(route, waypointId, stopItems, [
      ...(input.items ?? []).map((item) => ({ id: item.id, field: 'items' })),
      ...scanInputs.flatMap((scan) =>
        scan.itemId === undefined ? [] : [{ id: scan.itemId, field: 'scans' }],
      ),
    ]);
    const proofIds = input.proofIds ?? [];
    const proofs = await rejectUnusableProofs(
      driver.accountId,
      routeId,
      sequence,
      waypointId,
      input.id,
      proofIds,
    );
    const scans = matchScans(scanInputs, stopItems);
    const door = {
      status: input.status,
      delivered: deliveredItemIds(input.status, input.items ?? [], stopItems),
    };
    rejectMissingEvidence(waypointId, rules, {
      ...door,
      proofTypes: proofs.map((proof) => proof.type),
      signerName: input.signerName,
      scans,
      items: stopItems,
    });
    const ageCheck =
      rules.minimum_age === null
        ? undefined
        : checkAge(waypointId, rules, door, input.ageCheck, {
            timestamp: input.timestamp,
            localDate: await dcDateOf(driver, input.timestamp),
          });
    const pinRequired = rules.pin && deliversSomething(door);
    if (pinRequired && !pinChecked) {
      await checkPin({ accountId: driver.accountId, routeId, waypointId, sequence }, input.pin);
      pinChecked = true;
    }

    const attempt: Attempt = {
      id: input.id,
      waypointId,
      sequence,
      timestamp: input.timestamp,
      status: input.status,
      reason: input.reason,
      location: input.location,
      items: input.items ?? [],
      proofIds,
      signerName: input.signerName,
      scans,
      rules,
      pinVerified: pinRequired ? true : undefined,
      ageCheck,
      driverId: driver.driverId,
      recordedAt: Date.now(),
    };
    const outcome = await insertAttempt(route, attempt, {
      accountId: driver.accountId,
      dcId: driver.dcId,
      routeId,
      type: 'WAYPOINT_STATUS_CHANGED',
      details: {
        waypoint_id: waypointId,
        status: attempt.status,
        attempt_id: attempt.id,
        timestamp: attempt.timestamp,
        proof_ids: attempt.proofIds,
        signer_name: attempt.signerName ?? null,
      },
      occurredAt: attempt.recordedAt,
    });
    // A lost race with the same attempt id, with a change of the route, with another attempt naming one of the
    // proofs, or with another event of the route (its sequence, or a transaction writing it at the same time):
    // read again and decide again.
    if (outcome !== 'recorded') continue;
    await refreshEtas(ref, {
      at: attempt.timestamp,
      origin: attempt.location ?? undefined,
    });
    return { attempt, created: true };
  }
  throw new Error(`route '${routeId}' kept changing under ${MAX_RECORD_ATTEMPTS} attempts to record a visit`);
}

/** The day of an instant in the DC's time zone (YYYY-MM-DD): an age is counted on it. */
async function dcDateOf(driver: DriverCaller, at: number): Promise<string> {
  const dc = await getDc(driver.accountId, driver.dcId);
  if (!dc) throw new Error(`DC ${driver.dcId} is gone`);
  return localDateOf(at, dc.timeZone);
}

/** A retried attempt id must name the same waypoint; anything else is a client bug worth reporting. */
function sameAttempt(earlier: Attempt, waypointId: string): Attempt {
  if (earlier.waypointId !== waypointId) {
    throw new ValidationError(
      `id: attempt ${quote(earlier.id)} was already recorded for waypoint ${quote(earlier.waypointId)}`,
    );
  }
  return earlier;
}

/**
 * Every proof the attempt names must be one of the waypoint's (9001) and AVAILABLE, named by no other attempt
 * (9002). The transaction holds each proof to the same (attachProofItem).
 */
async function rejectUnusableProofs(
  accountId: string,
  routeId: string,
  sequence: number,
  waypointId: string,
  attemptId: string,
  proofIds: readonly string[],
): Promise<Proof[]> {
  const proofs = await Promise.all(proofIds.map((id) => getProof(accountId, routeId, sequence, id)));
  const missing = proofIds.filter((_, index) => !proofs[index]);
  if (missing.length > 0) {
    throw new ConflictError(
      'PROOF_NOT_ON_WAYPOINT',
      `proof_ids: ${quoteList(missing)} ${missing.length === 1 ? 'is not a proof' : 'are not proofs'} of waypoint ${quote(waypointId)}`,
    );
  }
  const problems = proofs.flatMap((proof) => {
    if (!proof) return [];
    if (proof.status !== 'AVAILABLE') return [`${quote(proof.id)} is ${proof.status}`];
    if (proof.attemptId !== undefined && proof.attemptId !== attemptId)
      return [`${quote(proof.id)} is named by attempt ${quote(proof.attemptId)}`];
    return [];
  });
  if (problems.length > 0) {
    throw new ConflictError('PROOF_NOT_AVAILABLE', `proof_ids: ${problems.join('; ')}`);
  }
  return proofs.filter((proof) => proof !== undefined);
}

/** Every item the attempt lists or a scan names must be one of the stop's (3013), named under its field. */
function rejectUnknownItems(
  route: RouteHeader,
  waypointId: string,
  stopItems: readonly StopItem[],
  named: readonly { id: string; field: string }[],
): void {
  const onWaypoint = new Set(stopItems.map((item) => item.id));
  const unknown = named.filter((item) => !onWaypoint.has(item.id));
  const first = unknown[0];
  if (!first) return;
  const ids = [...new Set(unknown.filter((item) => item.field === first.field).map((item) => item.id))];
  throw new ConflictError(
    'NOT_ON_ROUTE',
    `${first.field}: ${quoteList(ids)} ` +
      `${ids.length === 1 ? 'is' : 'are'} not on waypoint ${quote(waypointId)} of route ${quote(route.routeId)}`,
  );
}
