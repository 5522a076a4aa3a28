import type { Applied } from '../models/delivery-requirements';
import { queryItems, writeTransactionParts } from './client';
import { codec } from './codec';
import { getRecord, putRecordItem } from './item-ops';
import { attachProofItem } from './proofs';
import { type SequencedEvent, sequencedEventItems } from './route-event-sequences';
import { markWaypointVisitedItem } from './route-rows';
import { type RouteHeader, routeKeys, routeUnchangedCheck, type TransactItem } from './routes';
import type { TableKey } from './table-schema';

export type AttemptStatus = 'SUCCESSFUL' | 'FAILED' | 'VISIT_LATER';
export type ItemOutcome = 'SUCCESSFUL' | 'FAILED';

/**
 * A barcode scan of the visit and the stop's item it counts for (none: a mismatch). Stored as the API shows
 * it (snake_case keys, as every stored map's).
 */
export interface Scan {
  value: string;
  timestamp: number;
  /** The item the driver app said it scanned, if it said. */
  item_id?: string;
  matched_item_id?: string;
}

/**
 * The recipient's ID check of a visit to a stop with a minimum age: how it was made, its outcome against that
 * age on the day of the visit, and when (the attempt's time). Never the date of birth it was made with.
 */
export interface AgeCheck {
  method: 'ID_CHECKED';
  result: 'OLD_ENOUGH' | 'UNDER_AGE';
  timestamp: number;
}

export interface Reason {
  code: string;
  message: string;
}

/** One visit of a waypoint, as the driver app reported it. Never changed once written. */
export interface Attempt {
  id: string;
  waypointId: string;
  /** The waypoint's sequence (the key of its rows; not its place in the visiting order). */
  sequence: number;
  timestamp: number;
  status: AttemptStatus;
  /** Why the attempt failed; required when FAILED, and the reason of every item the attempt does not list. */
  reason?: Reason;
  location?: { latitude: number; longitude: number };
  /** Items given their own outcome; the others take the attempt's (VISIT_LATER leaves them as they were). */
  items: { id: string; status: ItemOutcome; reason?: Reason }[];
  /** Proofs of the waypoint (functions/data/proofs.ts) the attempt names: AVAILABLE ones, each named once. */
  proofIds: string[];
  /** Who signed for the delivery, as the app reported it. */
  signerName?: string;
  /** The barcode scans of the visit, matched or not; none on attempts recorded before scans. */
  scans?: Scan[];
  /**
   * The delivery rules of the stop when the attempt was recorded (models/delivery-requirements.ts); absent on
   * attempts recorded before delivery rules, which were held to none.
   */
  rules?: Applied;
  /** True when the visit gave the stop's PIN and it matched (the code is never kept); absent: none checked. */
  pinVerified?: boolean;
  /** The recipient's ID check, for a stop with a minimum age; absent: none made (or none required). */
  ageCheck?: AgeCheck;
  driverId: string;
  recordedAt: number;
}

/**
 * Attempts live in their route's partition, sorted by waypoint, so a page of the route's rows reads the
 * attempts of its own waypoints only:
 *   ATTEMPT#<wp seq 5>#<attempt id>   the attempt
 *   ATTEMPT_ID#<attempt id>           the waypoint the id was recorded for: an id is taken once per route,
 *                                     and a retried call finds its own attempt by it
 */
const PREFIX = 'ATTEMPT#';
const ID_PREFIX = 'ATTEMPT_ID#';
const waypointPrefix = (sequence: number) => `${PREFIX}${String(sequence).padStart(5, '0')}#`;

const attemptKey = (accountId: string, routeId: string, sequence: number, attemptId: string): TableKey =>
  routeKeys.row(accountId, routeId, `${waypointPrefix(sequence)}${attemptId}`);

const attemptIdKey = (accountId: string, routeId: string, attemptId: string): TableKey =>
  routeKeys.row(accountId, routeId, `${ID_PREFIX}${attemptId}`);

const attemptCodec = codec<Attempt>({
  id: { attr: 'attempt_id' },
  waypointId: {},
  sequence: {},
  timestamp: {},
  status: {},
  reason: {},
  location: {},
  items: { absent: [] },
  proofIds: { absent: [] },
  signerName: {},
  scans: { absent: [] },
  rules: {},
  pinVerified: {},
  ageCheck: {},
  driverId: {},
  recordedAt: {},
});

const fromItem = attemptCodec.fromItem;

/** The item keeping an attempt id unique in its route names the attempt's waypoint sequence. */
const attemptIdCodec = codec<{ id: string; sequence: number }>({ id: { attr: 'attempt_id' }, sequence: {} });

/**
 * Records a new attempt in one transaction with its event (taking the route's next event sequence), the
 * waypoint's visited mark (a visited waypoint can no longer be cancelled) and its proofs' attachment, on
 * condition that the route is still as `route` was read: 'recorded', or why not: 'id_taken' (the route has an
 * attempt with its id), 'route_changed', 'proof_taken' (a proof is no longer AVAILABLE, or another attempt
 * names it), or 'event_raced' (another event of the route took the sequence, or was written at the same time).
 */
export async function insertAttempt(
  route: RouteHeader,
  attempt: Attempt,
  event: SequencedEvent,
): Promise<'recorded' | 'id_taken' | 'route_changed' | 'proof_taken' | 'event_raced'> {
  const { accountId, routeId } = route;
  const [idItem, attemptItem] = putNewAttemptItems(accountId, routeId, attempt);
  const eventItems = await sequencedEventItems(event);
  const outcome = await writeTransactionParts(
    [
      { items: [idItem], refusedAs: 'id_taken' },
      { items: [attemptItem] },
      { items: [routeUnchangedCheck(route)], refusedAs: 'route_changed' },
      { items: [markWaypointVisitedItem(accountId, routeId, attempt.sequence)] },
      {
        items: attempt.proofIds.map((proofId) =>
          attachProofItem(accountId, routeId, attempt.sequence, proofId, attempt.id),
        ),
        refusedAs: 'proof_taken',
      },
      // The event's put has no condition: only its sequence's can fail.
      { items: eventItems, refusedAs: 'event_raced' },
    ],
    { conflictAs: 'event_raced' },
  );
  return outcome === 'written' ? 'recorded' : outcome;
}

/**
 * Transaction items writing a new attempt: its id first, whose condition fails when the id was already
 * recorded, then the attempt itself.
 */
function putNewAttemptItems(
  accountId: string,
  routeId: string,
  attempt: Attempt,
): [TransactItem, TransactItem] {
  return [
    putRecordItem({
      key: attemptIdKey(accountId, routeId, attempt.id),
      entity: 'ATTEMPT_ID',
      codec: attemptIdCodec,
      record: attempt,
      ifNew: true,
    }),
    putRecordItem({
      key: attemptKey(accountId, routeId, attempt.sequence, attempt.id),
      entity: 'ATTEMPT',
      codec: attemptCodec,
      record: attempt,
    }),
  ];
}

export async function getAttempt(
  accountId: string,
  routeId: string,
  attemptId: string,
): Promise<Attempt | undefined> {
  const idRecord = await getRecord(attemptIdKey(accountId, routeId, attemptId), attemptIdCodec.fromItem);
  if (!idRecord) return undefined;
  return getRecord(attemptKey(accountId, routeId, idRecord.sequence, attemptId), fromItem);
}

/**
 * The attempts of the route, or of its waypoints in sequence `first`..`last`, in the order they happened
 * (timestamp, then the order they were recorded).
 */
export async function listAttempts(
  accountId: string,
  routeId: string,
  waypoints?: { first: number; last: number },
): Promise<Attempt[]> {
  const pk = routeKeys.route(accountId, routeId).pk;
  const { items } = await queryItems({
    ...(waypoints
      ? {
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          // :to sorts after every attempt of waypoint `last` and before those of the next one.
          ExpressionAttributeValues: {
            ':pk': pk,
            ':from': waypointPrefix(waypoints.first),
            ':to': waypointPrefix(waypoints.last + 1),
          },
        }
      : {
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': PREFIX },
        }),
    ConsistentRead: true,
  });
  return items.map(fromItem).sort((a, b) => a.timestamp - b.timestamp || a.recordedAt - b.recordedAt);
}
