import { describe, expect, it } from 'vitest';
import * as routes from '../../functions/api/routes/index';
import { getOptimization, startOptimization } from '../../functions/data/optimizations';
import { type ApiResponse, expectError, expectSuccess } from '../support/http';
import { type Route, useRoutesApi } from '../support/route-changes';

/**
 * POST .../optimizations and GET .../optimizations/{id}: the route optimizer run by its worker. The errors every
 * route endpoint shares (401, 403, 3003, 1006 for the route id) are in routes.test.ts.
 */

const rt = useRoutesApi('optimizations');

/** Each test imports routes and waits on the optimization worker: minutes on a busy two-core machine. */
const SLOW = 240_000;

type Optimization = {
  optimization_id: string;
  status: string;
  waypoint_ids: string[] | null;
  before: Record<string, number> | null;
  after: Record<string, number> | null;
  applied: boolean;
  error: { code: number; message: string } | null;
};

/** Imports route `id` with `waypoints` stops on a line away from the warehouse, then gives it a zig-zag order. */
async function zigZagRoute(id: string, waypoints: number) {
  const { ids, asDriver, path } = await rt.importForAppDriver(id, waypoints);
  const zigZag = ids.map(
    (_, index) => ids[index % 2 === 0 ? index / 2 : ids.length - 1 - (index - 1) / 2] as string,
  );
  expectSuccess(
    await rt.asAcme('PUT', `${path}/waypoint-order`, { waypoint_ids: zigZag }),
    routes.reorderWaypoints,
  );
  return { ids, zigZag, path, asDriver };
}

const ask = (path: string, body: unknown): Promise<ApiResponse> =>
  rt.asAcme('POST', `${path}/optimizations`, body);

async function asked(path: string, body: unknown): Promise<string> {
  const { optimization_id } = expectSuccess(await ask(path, body), routes.requestOptimization, 202) as {
    optimization_id: string;
  };
  return optimization_id;
}

/** Polls the optimization until it is no longer PENDING (a deadline of 120 s: its worker takes seconds). */
async function finished(path: string, optimizationId: string): Promise<Optimization> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const response = await rt.asAcme('GET', `${path}/optimizations/${optimizationId}`);
    const { optimization } = expectSuccess(response, routes.getOptimization) as {
      optimization: Optimization;
    };
    if (optimization.status !== 'PENDING') return optimization;
    expect(Date.now(), `optimization ${optimizationId} still pending`).toBeLessThan(deadline);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('POST /dcs/{dc_id}/routes/{route_id}/optimizations', () => {
  it(
    'proposes a shorter order with its figures, and leaves the route as it is without apply',
    async () => {
      const { ids, zigZag, path } = await zigZagRoute('opt-propose', 6);
      const before = await rt.readRoute('dc-1', 'opt-propose');
      const optimization = await finished(path, await asked(path, {}));
      expect(optimization.status).toBe('SUCCEEDED');
      // On a line away from the warehouse and back, the best order goes out along it.
      expect(optimization.waypoint_ids).toEqual(ids);
      expect(optimization.after?.distance_meters).toBeLessThan(
        optimization.before?.distance_meters as number,
      );
      expect(optimization.after?.driving_seconds).toBeLessThan(
        optimization.before?.driving_seconds as number,
      );
      expect(optimization.after?.late_waypoints).toBe(0);
      expect(optimization.applied).toBe(false);
      expect(optimization.error).toBeNull();
      const after = await rt.readRoute('dc-1', 'opt-propose');
      expect(after.waypoint_ids).toEqual(zigZag);
      expect(after.version).toBe(before.version);
    },
    SLOW,
  );

  it(
    'applies the order with apply: version bumped, ROUTE_UPDATED naming the optimization',
    async () => {
      const { ids, path } = await zigZagRoute('opt-apply', 5);
      const before = await rt.readRoute('dc-1', 'opt-apply');
      const optimizationId = await asked(path, { apply: true });
      const optimization = await finished(path, optimizationId);
      expect(optimization).toMatchObject({ status: 'SUCCEEDED', applied: true, waypoint_ids: ids });
      const route: Route = await rt.readRoute('dc-1', 'opt-apply');
      expect(route.waypoint_ids).toEqual(ids);
      expect(route.version).toBe(before.version + 1);
      expect((await rt.routeUpdatedEvents('opt-apply')).at(-1)).toMatchObject({
        order_changed: true,
        optimization_id: optimizationId,
        version: route.version,
      });
    },
    SLOW,
  );

  it(
    'keeps locked waypoints and waypoints whose visit is done in their places, on a started route',
    async () => {
      const { zigZag, path, asDriver } = await zigZagRoute('opt-started', 6);
      expect(
        (await asDriver('POST', '/driver/routes/opt-started/start', { timestamp: Date.now() - 60_000 }))
          .status,
      ).toBe(200);
      const done = zigZag[1] as string;
      const visit = await asDriver('POST', `/driver/routes/opt-started/waypoints/${done}/attempts`, {
        id: 'opt-started-visit',
        timestamp: Date.now() - 1_000,
        status: 'FAILED',
        reason: { code: 'CLOSED', message: 'shop closed' },
      });
      expect(visit.status, visit.text).toBe(200);
      const locked = zigZag[4] as string;
      const optimization = await finished(path, await asked(path, { locked_waypoint_ids: [locked] }));
      expect(optimization.status).toBe('SUCCEEDED');
      expect(optimization.waypoint_ids?.[1]).toBe(done);
      expect(optimization.waypoint_ids?.[4]).toBe(locked);
      expect(new Set(optimization.waypoint_ids)).toEqual(new Set(zigZag));
    },
    SLOW,
  );

  it(
    'refuses a locked waypoint that is not on the route (3013) or named twice (1006), and a finished route (3012)',
    async () => {
      const { ids, path } = await zigZagRoute('opt-bad', 3);
      expect(expectError(await ask(path, { locked_waypoint_ids: ['nowhere'] }), 400, 3013)).toContain(
        'locked_waypoint_ids.0',
      );
      expect(expectError(await ask(path, { locked_waypoint_ids: [ids[0], ids[0]] }), 400, 1006)).toContain(
        'locked_waypoint_ids.1',
      );
      expect(expectError(await ask(path, { apply: 'yes' }), 400, 1006)).toContain('apply');
      expectSuccess(await rt.asAcme('PATCH', `${path}/finish`), routes.finishRoute);
      expectError(await ask(path, {}), 400, 3012);
    },
    SLOW,
  );

  it(
    'runs one at a time per route (3104 naming the one running), and none stays PENDING past its deadline (3105)',
    async () => {
      const { path } = await zigZagRoute('opt-one', 3);
      const { accountId } = rt.accounts.acme;
      const now = Date.now();
      const running = {
        accountId,
        dcId: 'dc-1',
        routeId: 'opt-one',
        optimizationId: 'opt_running0000000000',
        status: 'PENDING' as const,
        apply: false,
        lockedWaypointIds: [],
        createdAt: now,
        deadline: now + 600_000,
      };
      // An optimization whose worker never came (its message lost), written as the POST writes one.
      expect(await startOptimization(running)).toEqual({ outcome: 'started' });
      const refused = await ask(path, {});
      expect(expectError(refused, 409, 3104)).toContain(running.optimizationId);
      expect(refused.headers.get('Retry-After')).toBe('5');

      const abandoned = {
        ...running,
        optimizationId: 'opt_abandoned00000000',
        createdAt: now - 1_000_000,
        deadline: now - 1,
      };
      const { path: otherPath } = await zigZagRoute('opt-other', 3);
      expect(await startOptimization({ ...abandoned, routeId: 'opt-other' })).toEqual({ outcome: 'started' });
      const read = await finished(otherPath, abandoned.optimizationId);
      expect(read.status).toBe('FAILED');
      expect(read.error?.code).toBe(3105);
      // Its hold on the route ended with its deadline: the route can be optimized again.
      expect((await finished(otherPath, await asked(otherPath, {}))).status).toBe('SUCCEEDED');
      expect((await getOptimization(accountId, 'opt-other', abandoned.optimizationId))?.status).toBe(
        'PENDING',
      );
    },
    SLOW,
  );
});

describe('GET /dcs/{dc_id}/routes/{route_id}/optimizations/{optimization_id}', () => {
  it(
    'answers 404 (1003) for an unknown id and for another route’s optimization',
    async () => {
      const { path } = await zigZagRoute('opt-read', 3);
      const { path: otherPath } = await zigZagRoute('opt-read-other', 3);
      const optimizationId = await asked(path, {});
      expectError(await rt.asAcme('GET', `${otherPath}/optimizations/${optimizationId}`), 404, 1003);
      expectError(await rt.asAcme('GET', `${path}/optimizations/opt_unknown`), 404, 1003);
      expect((await finished(path, optimizationId)).status).toBe('SUCCEEDED');
    },
    SLOW,
  );
});
