import { type Attempt, type AttemptStatus, getAttempt, insertAttempt, type Reason } from '../data/attempts';
import { getProof } from '../data/proofs';
import { listWaypointItemIds } from '../data/route-rows';
import { type RouteHeader, waypointSequenceOf } from '../data/routes';
import type { DriverCaller } from '../shared/auth-context';
import { ConflictError, ValidationError } from '../shared/errors';
import { quote, quoteList } from '../shared/quote';
import { refreshEtas } from './route-etas';
import { pauseBeforeRetry, rejectFinalized, requireRoute } from './routes';

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
}

/** Visits of one route recorded at once take its event sequence in turn: each round one of them wins. */
const MAX_RECORD_ATTEMPTS = 10;

/**
 * Records one visit of a waypoint by the route's driver:
 * 1. the route must be the driver's, started and not finished (404 / 3011 / 3012);
 * 2. the waypoint and every listed item must be on it (3013);
 * 3. the attempt and WAYPOINT_STATUS_CHANGED (with the route's next event sequence) are written in one
 *    transaction, on condition that the attempt id is new, the route did not change and no other event of it
 *    took that sequence since they were read, with the waypoint's visited mark (a visited waypoint can no
 *    longer be cancelled);
 * 4. the ETAs are recomputed from the attempt's place and time.
 * The same attempt id again returns the stored attempt without writing anything (a retried call).
 */
export async function recordAttempt(
  driver: DriverCaller,
  routeId: string,
  waypointId: string,
  input: AttemptInput,
): Promise<{ attempt: Attempt; created: boolean }> {
  const ref = { ...driver, routeId };
  for (let round = 1; round <= MAX_RECORD_ATTEMPTS; round++) {
    await pauseBeforeRetry(round);
    const route = await requireRoute(ref);
    const earlier = await getAttempt(driver.accountId, routeId, input.id);
    if (earlier) return { attempt: sameAttempt(earlier, waypointId), created: false };
    rejectFinalized(route);
    if (route.startedTimestamp === undefined) {
      throw new ConflictError(
        'TRANSITION_NOT_ALLOWED',
        `route ${quote(routeId)} has not started; start it first`,
      );
    }
    const sequence = waypointSequenceOf(route, waypointId);
    if (sequence === undefined) {
      throw new ConflictError(
        'NOT_ON_ROUTE',
        `waypoint ${quote(waypointId)} is not on route ${quote(routeId)}`,
      );
    }
    await rejectUnknownItems(route, sequence, waypointId, input.items ?? []);
    const proofIds = input.proofIds ?? [];
    await rejectUnusableProofs(driver.accountId, routeId, sequence, waypointId, input.id, proofIds);

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
): Promise<void> {
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
}

async function rejectUnknownItems(
  route: RouteHeader,
  sequence: number,
  waypointId: string,
  items: readonly { id: string }[],
): Promise<void> {
  if (items.length === 0) return;
  const onWaypoint = new Set(await listWaypointItemIds(route, sequence));
  const unknown = items.filter((item) => !onWaypoint.has(item.id)).map((item) => item.id);
  if (unknown.length > 0) {
    throw new ConflictError(
      'NOT_ON_ROUTE',
      `items: ${quoteList(unknown)} ` +
        `${unknown.length === 1 ? 'is' : 'are'} not on waypoint ${quote(waypointId)} of route ${quote(route.routeId)}`,
    );
  }
}
