import { CfnEventSourceMapping } from 'aws-cdk-lib/aws-lambda';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as drivers from '../../functions/api/drivers/index';
import * as routes from '../../functions/api/routes/index';
import { findHeldClaims } from '../../functions/data/claims';
import { queryItems } from '../../functions/data/client';
import { routeKeys } from '../../functions/data/routes';
import * as channels from '../../functions/models/channels';
import { deleteRoutes } from '../../functions/workers/delete-routes/consumer';
import { sqsRecord } from '../../local/event-sources/sqs-records';
import { createTestAccount } from '../support/accounts';
import { functionOf } from '../support/cdk';
import { type CallOptions, call, expectError, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { exampleRoute, importRoute, receiveWaiting, trackingLookupsOf } from '../support/routes';

/**
 * Route deletion with the deletion worker held back: its event source mapping is disabled, so the test
 * sees the state between the DELETE and the worker, then runs the deployed worker on the queued messages
 * itself. A message removes at most ROWS_PER_MESSAGE rows, so a route of a few thousand rows takes several.
 */
const ROWS_PER_MESSAGE = 1000;
/** 60 waypoints, 2 invoices each, 25 items per invoice: 3,000 items, 3,180 rows besides the header. */
const BIG = { waypoints: 60, invoicesPerWaypoint: 2, itemsPerInvoice: 25 };
const BIG_ROWS = 60 + 60 * 2 + 60 * 2 * 25;
/** Its partition holds the header, the ETAs the import stored and its events' sequence counter besides the rows. */
const BIG_PARTITION_ITEMS = BIG_ROWS + 3;
/**
 * The deletion worker's runs over the big route (its rows and their claims, thousands of deletes): the usual
 * 30 s passed in a whole CI-like run on two cores.
 */
const WORKER_DEADLINE_MS = 180_000;

let api: TestApi;
let acme: { accountId: string; key: string };
let driverToken: string;

const request = (method: string, path: string, options: CallOptions = {}) =>
  call(api.url, method, path, options);
const asAcme = (method: string, path: string, body?: unknown) =>
  request(method, path, { key: acme.key, body });

beforeAll(async () => {
  api = await startTestApi('route-deletion', {
    customize: (app) => {
      const worker = functionOf(app, 'workers/delete-routes');
      worker.addEnvironment('ROUTE_DELETION_ROWS_PER_MESSAGE', String(ROWS_PER_MESSAGE));
      const [mapping] = worker.node.findAll().filter((child) => child instanceof CfnEventSourceMapping);
      (mapping as CfnEventSourceMapping).enabled = false;
    },
  });
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }]);
  const created = await asAcme('POST', '/dcs/dc-1/drivers', { driver_id: 'd-1', driver_name: 'Driver 1' });
  driverToken = (expectSuccess(created, drivers.createDriver) as { driver: { login_token: string } }).driver
    .login_token;
});

afterAll(() => api?.close());

/** Every item of the route's partition, header included, read as the operator. */
async function partitionItems(routeId: string) {
  const { pk } = routeKeys.route(acme.accountId, routeId);
  const { items } = await queryItems({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pk },
    ConsistentRead: true,
  });
  return items;
}

/** The claims still held for the route's route, waypoint, invoice and item ids. */
async function heldClaims(route: ReturnType<typeof exampleRoute>) {
  const waypoints = route.waypoints;
  const invoices = waypoints.flatMap((waypoint) => waypoint.invoices);
  return findHeldClaims(acme.accountId, [
    { kind: 'ROUTE', id: route.id },
    ...waypoints.map((waypoint) => ({ kind: 'WAYPOINT' as const, id: waypoint.id })),
    ...invoices.map((invoice) => ({ kind: 'INVOICE' as const, id: invoice.id })),
    ...invoices.flatMap((invoice) => invoice.items.map((item) => ({ kind: 'ITEM' as const, id: item.id }))),
  ]);
}

/** Runs the deployed deletion worker on one record, as its event source would; asserts it succeeded. */
async function runDeletionWorker(record: SQSRecord): Promise<void> {
  const result = await api.invoke(deleteRoutes, { Records: [record] });
  expect(result.kind, JSON.stringify(result)).toBe('success');
  expect(result.kind === 'success' && result.payload).toEqual({ batchItemFailures: [] });
}

/** Runs the worker on every queued message, continuations included, until the queue is empty. */
async function runDeletionWorkerUntilIdle(): Promise<number> {
  let invocations = 0;
  for (let records = await receiveWaiting(api, 'deletions'); records.length > 0; ) {
    for (const record of records) await runDeletionWorker(record);
    invocations += records.length;
    records = await receiveWaiting(api, 'deletions');
  }
  return invocations;
}

const routeIdsOf = (response: Awaited<ReturnType<typeof asAcme>>) =>
  (expectSuccess(response, routes.findRoutesByDate) as { routes: { id: string }[] }).routes.map(
    (route) => route.id,
  );

describe('DELETE /dcs/{dc_id}/routes/{route_id} of a route with thousands of items', () => {
  const big = exampleRoute('big', { ...BIG, driverId: 'd-1' });
  const neighbour = exampleRoute('neighbour', { driverId: 'd-1' });

  beforeAll(async () => {
    await importRoute(api.url, acme.key, 'dc-1', big);
    await importRoute(api.url, acme.key, 'dc-1', neighbour);
  });

  /** The tracking links of the first import of `big`, read before its deletion. */
  let firstLinks: string[] = [];
  const trackingLinksOf = async (routeId: string) => {
    const response = await asAcme('GET', `/dcs/dc-1/routes/${routeId}/waypoints`);
    const { waypoints } = expectSuccess(response, routes.listWaypoints) as {
      waypoints: { tracking_url: string }[];
    };
    return waypoints.map((waypoint) => waypoint.tracking_url);
  };

  it('answers at once and the route is gone from every read and change before the worker ran', async () => {
    expect(await partitionItems('big')).toHaveLength(BIG_PARTITION_ITEMS);
    expect(await trackingLookupsOf(acme.accountId, 'big')).toHaveLength(BIG.waypoints);
    firstLinks = await trackingLinksOf('big');

    const started = Date.now();
    expect(expectSuccess(await asAcme('DELETE', '/dcs/dc-1/routes/big'), routes.deleteRoute)).toEqual({});
    expect(Date.now() - started).toBeLessThan(5000);

    for (const path of ['', '/waypoints', '/waypoints/big-wp-0', '/completion-time', '/analytics/route'])
      expectError(await asAcme('GET', `/dcs/dc-1/routes/big${path}`), 404, 3003);
    // The spec answers these two with 400.
    for (const path of ['/invoices', '/accounting'])
      expectError(await asAcme('GET', `/dcs/dc-1/routes/big${path}`), 400, 3003);
    expect(routeIdsOf(await asAcme('GET', '/dcs/dc-1/routes/find_by_date/2026-11-23'))).toEqual([
      'neighbour',
    ]);
    const active = expectSuccess(
      await asAcme('GET', '/dcs/dc-1/drivers/d-1/active-routes'),
      drivers.getDriverActiveRoutes,
    ) as { active_routes: { route_id: string }[] };
    expect(active.active_routes.map((route) => route.route_id)).toEqual(['neighbour']);
    const driverView = await request('GET', '/driver/routes', { key: driverToken });
    expect((driverView.body.data as { routes: { id: string }[] }).routes.map((route) => route.id)).toEqual([
      'neighbour',
    ]);

    for (const [method, path, body] of [
      ['PATCH', '/activate', undefined],
      ['PATCH', '/deactivate', undefined],
      ['PATCH', '/driver-assignment', { driver_id: 'd-1' }],
      ['DELETE', '/driver-assignment', undefined],
      ['PATCH', '/vehicle-assignment', { vehicle_id: 'truck-2' }],
    ] as const)
      expectError(await asAcme(method, `/dcs/dc-1/routes/big${path}`, body), 404, 3003);
    const start = await request('POST', '/driver/routes/big/start', {
      key: driverToken,
      body: { timestamp: Date.now() },
    });
    expectError(start, 404, 3003);
  });

  it('keeps every id taken until the worker removed the rows: importing the route again is refused (3005)', async () => {
    expectError(await asAcme('POST', '/dcs/dc-1/invoiced-routes', { route: big }), 400, 3005);
    expect(await partitionItems('big')).toHaveLength(BIG_PARTITION_ITEMS);
    expect(await heldClaims(big)).toHaveLength(1 + BIG_ROWS);
  });

  it('answers a second DELETE while the rows are still there with the same success', async () => {
    expect(expectSuccess(await asAcme('DELETE', '/dcs/dc-1/routes/big'), routes.deleteRoute)).toEqual({});
  });

  it(
    'the worker removes every row, claim and the header, a chunk per message, and leaves other routes alone',
    async () => {
      const invocations = await runDeletionWorkerUntilIdle();
      // Each message removes at most ROWS_PER_MESSAGE rows before queueing the rest.
      expect(invocations).toBeGreaterThanOrEqual(Math.ceil(BIG_ROWS / ROWS_PER_MESSAGE));
      expect(await partitionItems('big')).toEqual([]);
      expect(await heldClaims(big)).toEqual([]);
      expect(await trackingLookupsOf(acme.accountId, 'big')).toEqual([]);
      expect(await trackingLookupsOf(acme.accountId, 'neighbour')).toHaveLength(neighbour.waypoints.length);
      expect(await partitionItems('neighbour')).not.toHaveLength(0);
      expect(await heldClaims(neighbour)).not.toHaveLength(0);
      expectSuccess(await asAcme('GET', '/dcs/dc-1/routes/neighbour'), routes.getRoute);
    },
    WORKER_DEADLINE_MS,
  );

  it('answers DELETE of the removed route with 3003, and the same route imports again', async () => {
    expectError(await asAcme('DELETE', '/dcs/dc-1/routes/big'), 404, 3003);
    await importRoute(api.url, acme.key, 'dc-1', big);
    const again = expectSuccess(await asAcme('GET', '/dcs/dc-1/routes/big'), routes.getRoute) as {
      route: { version: number; waypoint_ids: string[] };
    };
    expect(again.route.version).toBe(1);
    expect(again.route.waypoint_ids).toHaveLength(BIG.waypoints);
    expect(await partitionItems('big')).toHaveLength(BIG_PARTITION_ITEMS);
    // The new route's waypoints have links of their own: the old ones name nothing any more.
    const links = await trackingLinksOf('big');
    expect(firstLinks).toHaveLength(BIG.waypoints);
    expect(links.filter((link) => firstLinks.includes(link))).toEqual([]);
    // The same import as the one before all (hookTimeout).
  }, 90_000);

  it('removes nothing for a message that arrives after the route id was imported again', async () => {
    await runDeletionWorker(staleDeletionRecord('big'));
    expect(await partitionItems('big')).toHaveLength(BIG_PARTITION_ITEMS);
    expectSuccess(await asAcme('GET', '/dcs/dc-1/routes/big'), routes.getRoute);
  });

  it('treats a message for a route that does not exist as done', async () => {
    await runDeletionWorker(staleDeletionRecord('never-imported'));
  });
});

/** A deletions message for `routeId`, as a redelivery of an old one would arrive. */
function staleDeletionRecord(routeId: string): SQSRecord {
  return sqsRecord({
    messageId: `stale-${routeId}`,
    receiptHandle: 'stale',
    body: JSON.stringify({ account_id: acme.accountId, route_id: routeId }),
    queueArn: api.cloud.queue(channels.deletions).arn,
    attributes: { ApproximateReceiveCount: '2' },
  });
}
