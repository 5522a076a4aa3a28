import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName, writeTransactionParts } from './client';
import { codec } from './codec';
import { conditionHeld, getRecord, putRecordItem } from './item-ops';
import { routeKeys } from './routes';

/**
 * Optimizations of a route's order (POST .../optimizations), in the route's partition, so a deletion of the
 * route takes them with its rows:
 *   OPTIMIZATION#<id>   the optimization: what was asked, then what the worker found and did
 *   OPTIMIZING          the route's lock: the optimization under way, until its deadline (one at a time)
 */

export type OptimizationStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/** What an order achieves under the travel model (functions/domain/optimizer/route-problem.ts). */
export interface OrderFiguresRecord {
  distance_meters: number;
  driving_seconds: number;
  late_waypoints: number;
  lateness_seconds: number;
  finish_timestamp: number;
}

export interface Optimization {
  accountId: string;
  dcId: string;
  routeId: string;
  optimizationId: string;
  status: OptimizationStatus;
  apply: boolean;
  lockedWaypointIds: string[];
  createdAt: number;
  /** Still PENDING by then, it is FAILED (3105): no optimization stays PENDING for ever. */
  deadline: number;
  /** The proposed order: every waypoint of the route. */
  waypointIds?: string[];
  before?: OrderFiguresRecord;
  after?: OrderFiguresRecord;
  applied?: boolean;
  stoppedByTimeLimit?: boolean;
  error?: { code: number; message: string };
  finishedAt?: number;
}

/** Optimizations are kept 7 days. */
const KEPT_SECONDS = 7 * 86_400;

const optimizationSk = (optimizationId: string) => `OPTIMIZATION#${optimizationId}`;
const LOCK_SK = 'OPTIMIZING';

const optimizationCodec = codec<Optimization>({
  accountId: {},
  dcId: {},
  routeId: {},
  optimizationId: {},
  status: {},
  apply: {},
  lockedWaypointIds: { absent: [] },
  createdAt: {},
  deadline: {},
  waypointIds: {},
  before: {},
  after: {},
  applied: {},
  stoppedByTimeLimit: {},
  error: {},
  finishedAt: {},
});

/** The attributes an optimization's end sets. */
const ENDING_FIELDS = [
  'status',
  'waypoint_ids',
  'before',
  'after',
  'applied',
  'stopped_by_time_limit',
  'error',
  'finished_at',
];

const lockCodec = codec<{ optimizationId: string; heldUntil: number }>({ optimizationId: {}, heldUntil: {} });

const keyOf = (optimization: Pick<Optimization, 'accountId' | 'routeId' | 'optimizationId'>) =>
  routeKeys.row(optimization.accountId, optimization.routeId, optimizationSk(optimization.optimizationId));

/**
 * Records a PENDING optimization together with the route's lock, on condition that no other optimization of
 * the route holds the lock (or its hold ended at its deadline): 'started', or 'running' with the one that
 * holds it.
 */
export async function startOptimization(
  optimization: Optimization,
): Promise<{ outcome: 'started' } | { outcome: 'running'; optimizationId: string }> {
  const { accountId, routeId } = optimization;
  const lockKey = routeKeys.row(accountId, routeId, LOCK_SK);
  const outcome = await writeTransactionParts([
    {
      items: [
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...lockKey,
              entity: 'OPTIMIZATION_LOCK',
              ...lockCodec.toItem({
                optimizationId: optimization.optimizationId,
                heldUntil: optimization.deadline,
              }),
              expires_at: Math.floor(optimization.deadline / 1000) + KEPT_SECONDS,
            },
            ConditionExpression: 'attribute_not_exists(pk) OR held_until < :now',
            ExpressionAttributeValues: { ':now': optimization.createdAt },
          },
        },
      ],
      refusedAs: 'running' as const,
    },
    {
      items: [
        putRecordItem({
          key: keyOf(optimization),
          entity: 'OPTIMIZATION',
          codec: optimizationCodec,
          record: optimization,
          also: { expires_at: Math.floor(optimization.createdAt / 1000) + KEPT_SECONDS },
          ifNew: true,
        }),
      ],
    },
  ]);
  if (outcome === 'written') return { outcome: 'started' };
  const lock = await getRecord(lockKey, lockCodec.fromItem);
  return { outcome: 'running', optimizationId: lock?.optimizationId ?? '' };
}

export const getOptimization = (accountId: string, routeId: string, optimizationId: string) =>
  getRecord(keyOf({ accountId, routeId, optimizationId }), optimizationCodec.fromItem);

/**
 * Ends a PENDING optimization once, before its deadline (a late or repeated run finds it ended: false), then
 * releases the route's lock if the optimization still holds it.
 */
export async function endOptimization(
  optimization: Optimization,
  outcome: Pick<
    Optimization,
    'status' | 'waypointIds' | 'before' | 'after' | 'applied' | 'stoppedByTimeLimit' | 'error'
  >,
  now: number,
): Promise<boolean> {
  const fields = optimizationCodec.toItem({ ...optimization, ...outcome, finishedAt: now });
  // The outcome's fields that have a value (an absent one is no attribute).
  const set = Object.entries(fields).filter(
    ([name, value]) => value !== undefined && ENDING_FIELDS.includes(name),
  );
  const ended = await conditionHeld(
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(optimization),
        UpdateExpression: `SET ${set.map((_, index) => `#f${index} = :f${index}`).join(', ')}`,
        ConditionExpression: '#state = :pending AND deadline > :now',
        ExpressionAttributeNames: {
          ...Object.fromEntries(set.map(([name], index) => [`#f${index}`, name])),
          '#state': 'status',
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(set.map(([, value], index) => [`:f${index}`, value])),
          ':pending': 'PENDING',
          ':now': now,
        },
      }),
    ),
  );
  await conditionHeld(
    db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: routeKeys.row(optimization.accountId, optimization.routeId, LOCK_SK),
        ConditionExpression: 'optimization_id = :id',
        ExpressionAttributeValues: { ':id': optimization.optimizationId },
      }),
    ),
  );
  return ended;
}
