import { queryItems, tableName, writeTransactionParts } from './client';
import { codec } from './codec';
import { type Driver, type RecentVisit, replaceRecentVisitsItem } from './drivers';
import { putRecordItem } from './item-ops';
import { type SequencedEvent, sequencedEventsItems } from './route-event-sequences';
import { routeKeys, type TransactItem } from './routes';
import type { TableKey } from './table-schema';

/**
 * The visits of a route's waypoints that arrival detection saw (domain/arrivals.ts), in the route's partition
 * sorted by waypoint and arrival, so a page of waypoints reads the visits of its own waypoints only:
 *   VISIT#<wp seq 5>#<arrived at 15>   a visit: when the driver arrived and, once known, left
 * A route's deletion removes them with its other rows.
 */
export interface VisitRecord {
  waypointId: string;
  /** The waypoint's sequence (its row's key). */
  sequence: number;
  driverId: string;
  arrivedAt: number;
  departedAt?: number;
}

const PREFIX = 'VISIT#';
const waypointPrefix = (sequence: number) => `${PREFIX}${String(sequence).padStart(5, '0')}#`;
const visitKey = (
  accountId: string,
  routeId: string,
  visit: Pick<VisitRecord, 'sequence' | 'arrivedAt'>,
): TableKey =>
  routeKeys.row(
    accountId,
    routeId,
    `${waypointPrefix(visit.sequence)}${String(visit.arrivedAt).padStart(15, '0')}`,
  );

const visitCodec = codec<VisitRecord>({
  waypointId: {},
  sequence: {},
  driverId: {},
  arrivedAt: {},
  departedAt: {},
});

/** The visits of the route's waypoints (of sequences `first`..`last` when given), by waypoint, then arrival. */
export async function listVisits(
  accountId: string,
  routeId: string,
  range?: { first: number; last: number },
): Promise<VisitRecord[]> {
  const { items } = await queryItems({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': routeKeys.partition(accountId, routeId),
      ':from': range ? waypointPrefix(range.first) : PREFIX,
      // '$' sorts after '#', so the bound takes in every visit of the last waypoint.
      ':to': range ? `${waypointPrefix(range.last).slice(0, -1)}$` : `${PREFIX.slice(0, -1)}$`,
    },
    ConsistentRead: true,
  });
  return items.map(visitCodec.fromItem);
}

/** What one detection records: visits begun (maybe ended too) and visits ended. */
export interface VisitWrites {
  arrived: VisitRecord[];
  departed: VisitRecord[];
}

/** Transaction item writing a new visit, unless one of the waypoint with that arrival is stored. */
const putVisitItem = (accountId: string, routeId: string, visit: VisitRecord): TransactItem =>
  putRecordItem({
    key: visitKey(accountId, routeId, visit),
    entity: 'VISIT',
    codec: visitCodec,
    record: visit,
    ifNew: true,
  });

/** Transaction item ending a stored visit that has not ended. */
const departVisitItem = (accountId: string, routeId: string, visit: VisitRecord): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: visitKey(accountId, routeId, visit),
    UpdateExpression: 'SET departed_at = :at',
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(departed_at)',
    ExpressionAttributeValues: { ':at': visit.departedAt },
  },
});

/**
 * Records what a detection saw on one route of `driver`: the visits begun and ended, the driver's recent visits
 * as `recent`, and `events` with the route's next sequences, in one transaction. On condition that the driver's
 * recent visits are still those read ('visits_changed': another ping's detection came first, read again) and
 * that no other event took the sequence ('event_raced'); 'conflicted' when another transaction was writing
 * one of its items (a ping's location update of the driver).
 */
export async function recordVisits(
  driver: Driver,
  routeId: string,
  writes: VisitWrites,
  recent: readonly RecentVisit[],
  events: readonly SequencedEvent[],
): Promise<'recorded' | 'visits_changed' | 'event_raced' | 'conflicted'> {
  const { accountId } = driver;
  const eventItems = await sequencedEventsItems(events);
  const outcome = await writeTransactionParts(
    [
      { items: [replaceRecentVisitsItem(driver, recent)], refusedAs: 'visits_changed' },
      {
        items: [
          ...writes.arrived.map((visit) => putVisitItem(accountId, routeId, visit)),
          ...writes.departed.map((visit) => departVisitItem(accountId, routeId, visit)),
        ],
        refusedAs: 'visits_changed',
      },
      { items: eventItems, refusedAs: 'event_raced' },
    ],
    { conflictAs: 'conflicted' },
  );
  return outcome === 'written' ? 'recorded' : outcome;
}
