import type { Attempt, AttemptStatus, Reason } from '../data/attempts';
import type { ItemStatus, WaypointRow } from '../data/route-rows';

/**
 * What happened on a route, derived from its attempts (the only record of visits): a waypoint's status
 * is its latest attempt's, an item's is the latest attempt that decided it. Deriving instead of storing
 * keeps an attempt one small transaction however many items its waypoint holds.
 */
export type WaypointStatus = 'PENDING' | AttemptStatus;

/** A waypoint is done once its latest visit succeeded or failed; VISIT_LATER keeps it on the plan. */
export const isDone = (status: WaypointStatus) => status === 'SUCCESSFUL' || status === 'FAILED';

export interface WaypointProgress {
  status: WaypointStatus;
  /** Its attempts, oldest first. */
  attempts: Attempt[];
}

/** Attempts must come oldest first (listAttempts' order). */
export function progressByWaypoint(attempts: readonly Attempt[]): Map<string, WaypointProgress> {
  const progress = new Map<string, WaypointProgress>();
  for (const attempt of attempts) {
    const entry = progress.get(attempt.waypointId) ?? { status: 'PENDING', attempts: [] };
    entry.attempts.push(attempt);
    entry.status = attempt.status;
    progress.set(attempt.waypointId, entry);
  }
  return progress;
}

export const progressOf = (progress: Map<string, WaypointProgress>, waypoint: Pick<WaypointRow, 'id'>) =>
  progress.get(waypoint.id) ?? { status: 'PENDING' as const, attempts: [] };

/**
 * An item's latest status over its waypoint's attempts (oldest first): an attempt that lists the item
 * decides it; one that does not decides it with the attempt's own status, except VISIT_LATER, which
 * leaves it as it was. Undefined until some attempt decided it.
 */
export function itemStatusOf(itemId: string, attempts: readonly Attempt[]): ItemStatus | undefined {
  let latest: ItemStatus | undefined;
  for (const attempt of attempts) {
    const listed = attempt.items.find((item) => item.id === itemId);
    const status = listed?.status ?? (attempt.status === 'VISIT_LATER' ? undefined : attempt.status);
    if (!status) continue;
    const reason: Reason | undefined = status === 'FAILED' ? (listed?.reason ?? attempt.reason) : undefined;
    latest = { status, timestamp: attempt.timestamp, ...(reason ? { reason } : {}) };
  }
  return latest;
}

/** When the last waypoint was done: the latest final attempt, once every waypoint is done. */
export function actualCompletion(
  waypoints: readonly Pick<WaypointRow, 'id'>[],
  progress: Map<string, WaypointProgress>,
): number | undefined {
  let last = Number.NEGATIVE_INFINITY;
  for (const waypoint of waypoints) {
    const { status, attempts } = progressOf(progress, waypoint);
    if (!isDone(status)) return undefined;
    last = Math.max(last, attempts.at(-1)?.timestamp ?? last);
  }
  return waypoints.length > 0 ? last : undefined;
}
