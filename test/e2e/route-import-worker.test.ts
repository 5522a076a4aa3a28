import { type ChildProcess, spawn } from 'node:child_process';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as routes from '../../functions/api/routes/index';
import { accountKeys } from '../../functions/data/accounts';
import { db, tableName } from '../../functions/data/client';
import { getImport } from '../../functions/data/imports';
import { getRouteHeader } from '../../functions/data/routes';
import { getTrackingLookup } from '../../functions/data/tracking-links';
import * as channels from '../../functions/models/channels';
import { trackingToken } from '../../functions/models/tracking-links';
import { createTestAccount } from '../support/accounts';
import { type CallOptions, call, expectError, expectSuccess, readAllPages } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import {
  exampleRoute,
  claimsHeldBy as heldClaims,
  receiveImportMessages,
  runImportWorker,
  trackingLookupsOf,
} from '../support/routes';
import { scanItems } from '../support/table-scans';

/**
 * The import worker driven by the test instead of the poller, so that deliveries can be duplicated,
 * raced and interrupted at will. Everything else is real: the API, DynamoDB Local, fauxqs.
 */
let api: TestApi;
let acme: { accountId: string; key: string };
const request = (method: string, path: string, options: CallOptions = {}) =>
  call(api.url, method, path, { key: acme.key, ...options });

async function accept(route: unknown): Promise<string> {
  const response = await request('POST', '/dcs/dc-1/invoiced-routes', { body: { route } });
  return (expectSuccess(response, routes.importRoute, 202) as { txid: string }).txid;
}

const status = (txid: string) => request('GET', `/dcs/dc-1/routes/import-status/${txid}`);
const invoices = (routeId: string) => request('GET', `/dcs/dc-1/routes/${routeId}/invoices`);

async function eventsOf(routeId: string) {
  const items = await scanItems({ entity: 'EVENT', route_id: routeId });
  return items.map((item) => item.event_type as string);
}

/** How many of the route's ids the import holds claims on. */
const claimsHeldBy = (txid: string, route: ReturnType<typeof exampleRoute>) =>
  heldClaims(acme.accountId, txid, route);

/** Whether the import has written the tracking link of its route's first waypoint (its rows come after). */
async function wroteTrackingLinks(txid: string, route: ReturnType<typeof exampleRoute>) {
  const key = (await getImport(acme.accountId, txid))?.trackingKey;
  const [first] = route.waypoints;
  if (!key || !first) throw new Error(`import ${txid} has no tracking key or route ${route.id} no waypoint`);
  return (await getTrackingLookup(trackingToken(key, first.id))) !== undefined;
}

/** How many items the invoice status read shows for the route, over all of its pages. */
async function countItems(routeId: string): Promise<number> {
  const pages = await readAllPages(
    (path) => request('GET', path),
    `/dcs/dc-1/routes/${routeId}/invoices`,
    routes.getInvoiceStatus,
  );
  const shown = pages.flatMap((page) => page.invoices as { items: unknown[] }[]);
  return shown.reduce((sum, invoice) => sum + invoice.items.length, 0);
}

beforeAll(async () => {
  api = await startTestApi('import-worker', { pollers: false });
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }, { dcId: 'doomed' }]);
});

afterAll(() => api?.close());

describe('the import worker', () => {
  it('leaves an accepted import pending (202 with the txid) until the worker has run', async () => {
    const txid = await accept(exampleRoute('pending-1'));
    expect(expectSuccess(await status(txid), routes.getImportStatus, 202)).toEqual({
      txid,
      status: 'PENDING',
    });
    expectError(await invoices('pending-1'), 400, 3003);
    const [message] = await receiveImportMessages(api, 1);
    expect(await runImportWorker(api, [message as SQSRecord])).toEqual({ batchItemFailures: [] });
    expect(expectSuccess(await status(txid), routes.getImportStatus)).toEqual({
      txid,
      status: 'SUCCEEDED',
      route_id: 'pending-1',
    });
  });

  it('imports once when SQS delivers the same message twice, one after the other', async () => {
    const txid = await accept(exampleRoute('twice-1'));
    const [message] = await receiveImportMessages(api, 1);
    await runImportWorker(api, [message as SQSRecord]);
    await runImportWorker(api, [message as SQSRecord]);
    expect((await status(txid)).status).toBe(200);
    expect(await countItems('twice-1')).toBe(4);
    expect(await eventsOf('twice-1')).toEqual(['ROUTE_CREATED']);
  });

  it('imports once when SQS delivers the same message twice at the same time', async () => {
    const txid = await accept(exampleRoute('twice-2', { waypoints: 20, itemsPerInvoice: 5 }));
    const [message] = await receiveImportMessages(api, 1);
    await Promise.all([
      runImportWorker(api, [message as SQSRecord]),
      runImportWorker(api, [message as SQSRecord]),
    ]);
    expect((await status(txid)).status).toBe(200);
    expect(await countItems('twice-2')).toBe(100);
    expect(await eventsOf('twice-2')).toEqual(['ROUTE_CREATED']);
  });

  it('ends two concurrent imports of the same route id with exactly one route and the other FAILED with 3005', async () => {
    const first = await accept(exampleRoute('race-1', { waypoints: 10 }));
    const second = await accept({ ...exampleRoute('race-1', { waypoints: 3 }), name: 'the other one' });
    const messages = await receiveImportMessages(api, 2);
    await Promise.all(messages.map((message) => runImportWorker(api, [message])));

    const outcomes = await Promise.all([status(first), status(second)]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual([200, 400]);
    const loser = outcomes.find((outcome) => outcome.status === 400);
    expectError(loser as Awaited<ReturnType<typeof status>>, 400, 3005);
    const winnerTxid = outcomes[0]?.status === 200 ? first : second;
    const expectedItems = winnerTxid === first ? 20 : 6;
    expect(await countItems('race-1')).toBe(expectedItems);
    expect((await eventsOf('race-1')).sort()).toEqual(['ROUTE_CREATED', 'ROUTE_IMPORT_FAILED']);
  });

  it('imports exactly one of two large imports of the same route run at once, each time', async () => {
    // Hundreds of ids each, taken in parallel batches: without the route id taken alone first, each import
    // could take some ids the other needs, and both would fail.
    for (const pair of [1, 2, 3]) {
      const routeId = `race-large-${pair}`;
      const txids = [
        await accept(exampleRoute(routeId, { waypoints: 40, itemsPerInvoice: 4 })),
        await accept({
          ...exampleRoute(routeId, { waypoints: 40, itemsPerInvoice: 4 }),
          name: 'the other one',
        }),
      ];
      const messages = await receiveImportMessages(api, 2);
      await Promise.all(messages.map((message) => runImportWorker(api, [message])));
      const outcomes = await Promise.all(txids.map(status));
      expect(outcomes.map((outcome) => outcome.status).sort(), routeId).toEqual([200, 400]);
      const loser = outcomes.findIndex((outcome) => outcome.status === 400);
      expectError(outcomes[loser] as Awaited<ReturnType<typeof status>>, 400, 3005);
      const route = exampleRoute(routeId, { waypoints: 40, itemsPerInvoice: 4 });
      expect(await claimsHeldBy(txids[loser] as string, route)).toBe(0);
    }
  });

  it('ends two concurrent imports sharing only an item id with one route and the other FAILED with 3009, its claims released', async () => {
    const a = exampleRoute('share-a', { waypoints: 30 });
    const b = exampleRoute('share-b', { waypoints: 30 });
    const shared = a.waypoints[29]?.invoices[0]?.items[1];
    const target = b.waypoints[29]?.invoices[0]?.items[1];
    if (!shared || !target) throw new Error('fixture too small');
    target.id = shared.id;
    const txids = [await accept(a), await accept(b)];
    const messages = await receiveImportMessages(api, 2);
    await Promise.all(messages.map((message) => runImportWorker(api, [message])));

    const outcomes = await Promise.all(txids.map(status));
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual([200, 400]);
    const loserIndex = outcomes.findIndex((outcome) => outcome.status === 400);
    expectError(outcomes[loserIndex] as Awaited<ReturnType<typeof status>>, 400, 3009);
    expect(await claimsHeldBy(txids[loserIndex] as string, loserIndex === 0 ? a : b)).toBe(0);
    expectError(await invoices(loserIndex === 0 ? 'share-a' : 'share-b'), 400, 3003);

    // Every other id of the failed route is free again: the same route without the shared item imports.
    const retry = loserIndex === 0 ? a : b;
    retry.waypoints[29]?.invoices[0]?.items.splice(1, 1);
    const retryTxid = await accept(retry);
    await runImportWorker(api, await receiveImportMessages(api, 1));
    expect((await status(retryTxid)).status).toBe(200);
  });

  it('fails an import whose driver left the DC after acceptance with 3010, releasing its claims', async () => {
    const created = await request('POST', '/dcs/dc-1/drivers', {
      body: { driver_id: 'leaving', driver_name: 'Leaving' },
    });
    expect(created.status).toBe(200);
    const route = exampleRoute('orphan-1', { driverId: 'leaving' });
    const txid = await accept(route);
    expect((await request('DELETE', '/dcs/dc-1/drivers/leaving')).status).toBe(200);
    await runImportWorker(api, await receiveImportMessages(api, 1));
    expectError(await status(txid), 400, 3010);
    expect(await claimsHeldBy(txid, route)).toBe(0);
  });

  it('fails an import whose driver is deleted while its rows are written with 3010, leaving none of its rows or tracking links', async () => {
    const created = await request('POST', '/dcs/dc-1/drivers', {
      body: { driver_id: 'leaving-late', driver_name: 'Leaving Late' },
    });
    expect(created.status).toBe(200);
    // Rows enough that the worker writes them for seconds (the moment to delete the driver falls among them).
    const route = exampleRoute('orphan-2', {
      driverId: 'leaving-late',
      waypoints: 200,
      invoicesPerWaypoint: 1,
      itemsPerInvoice: 5,
      leanItems: true,
    });
    const txid = await accept(route);
    const run = runImportWorker(api, await receiveImportMessages(api, 1));
    // The driver goes once the worker has begun writing rows: the header's transaction then finds it gone.
    const deadline = Date.now() + 60_000;
    while (!(await wroteTrackingLinks(txid, route))) {
      expect(Date.now(), 'the worker wrote no tracking link').toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await request('DELETE', '/dcs/dc-1/drivers/leaving-late')).status).toBe(200);
    expect(await run).toEqual({ batchItemFailures: [] });

    expectError(await status(txid), 400, 3010);
    expect(await claimsHeldBy(txid, route)).toBe(0);
    expect(await getRouteHeader(acme.accountId, 'orphan-2')).toBeUndefined();
    expect(await trackingLookupsOf(acme.accountId, 'orphan-2')).toEqual([]);
  }, 120_000);
});

describe('a worker killed in the middle of an import', () => {
  let worker: ChildProcess | undefined;
  afterAll(() => worker?.kill('SIGKILL'));

  it('leaves no readable route, and the redelivered message imports all of it', async () => {
    // Rows enough that the worker writes them for seconds, so that the kill falls among them.
    const route = exampleRoute('crash-1', {
      waypoints: 300,
      invoicesPerWaypoint: 1,
      itemsPerInvoice: 5,
      leanItems: true,
    });
    const txid = await accept(route);
    const [message] = await receiveImportMessages(api, 1);

    // A real crash: the worker runs in its own process and is killed with SIGKILL once it has claimed ids. Its
    // environment is the operator's, as a function's would be.
    worker = spawn('node_modules/.bin/tsx', ['test/support/run-import-worker.ts'], {
      env: { ...process.env, ...api.cloud.operatorEnvironment, IMPORT_RECORD: JSON.stringify(message) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    // Quiet, the worker starts and claims in about 10 s; a busy machine takes several times that.
    const deadline = Date.now() + 120_000;
    // Killed once it has claimed every id and begun writing rows (the tracking links come first).
    while (!(await wroteTrackingLinks(txid, route))) {
      expect(worker.exitCode, 'the worker finished before it could be killed').toBeNull();
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker?.once('exit', resolve));

    expect(expectSuccess(await status(txid), routes.getImportStatus, 202)).toEqual({
      txid,
      status: 'PENDING',
    });
    expectError(await invoices('crash-1'), 400, 3003);
    expect(await claimsHeldBy(txid, route)).toBeGreaterThan(0);

    // SQS hands the message out again after its visibility timeout; the retry finishes the import.
    const redelivered = {
      ...(message as SQSRecord),
      attributes: { ...(message as SQSRecord).attributes, ApproximateReceiveCount: '2' },
    };
    expect(await runImportWorker(api, [redelivered])).toEqual({ batchItemFailures: [] });
    expect(expectSuccess(await status(txid), routes.getImportStatus)).toEqual({
      txid,
      status: 'SUCCEEDED',
      route_id: 'crash-1',
    });
    expect(await countItems('crash-1')).toBe(1_500);
    // The retry wrote the same tracking links as the killed run (the import's key): none is left over.
    expect(await trackingLookupsOf(acme.accountId, 'crash-1')).toHaveLength(300);
  }, 180_000);

  it('fails an import whose last attempt fails after claiming with 1000, releasing its claims', async () => {
    const route = exampleRoute('last-1', { waypoints: 5 });
    const accepted = await request('POST', '/dcs/doomed/invoiced-routes', { body: { route } });
    const { txid } = expectSuccess(accepted, routes.importRoute, 202) as { txid: string };
    const [message] = await receiveImportMessages(api, 1);
    // The DC disappears between acceptance and the worker: a failure no retry can fix.
    const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    await db.send(
      new DeleteCommand({ TableName: tableName(), Key: accountKeys.dc(acme.accountId, 'doomed') }),
    );
    // Every receive but the worker's runs was spent while throttled: the receive count is at the DLQ's limit
    // from the first run on, and still only the worker's own count of runs decides its last attempt.
    const { maxReceiveCount, workerAttempts } = channels.imports;
    const throttled = {
      ...(message as SQSRecord),
      attributes: { ...(message as SQSRecord).attributes, ApproximateReceiveCount: String(maxReceiveCount) },
    };
    for (let run = 1; run < workerAttempts; run++) {
      await expect(runImportWorker(api, [throttled])).rejects.toThrow(/All records failed/);
      expect(await getImport(acme.accountId, txid)).toMatchObject({ status: 'PENDING' });
      expect(await claimsHeldBy(txid, route)).toBeGreaterThan(0);
    }

    expect(await runImportWorker(api, [throttled])).toEqual({ batchItemFailures: [] });
    expect(await getImport(acme.accountId, txid)).toMatchObject({ status: 'FAILED', error: { code: 1000 } });
    expect(await claimsHeldBy(txid, route)).toBe(0);
    expect(await getRouteHeader(acme.accountId, 'last-1')).toBeUndefined();
  });

  it('leaves a failed attempt before the last one to SQS to retry, keeping its claims', async () => {
    const route = exampleRoute('retry-1', { waypoints: 5 });
    const txid = await accept(route);
    const [message] = await receiveImportMessages(api, 1);
    const { DeleteCommand, PutCommand, GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const dcKey = accountKeys.dc(acme.accountId, 'dc-1');
    const { Item: dc } = await db.send(new GetCommand({ TableName: tableName(), Key: dcKey }));
    await db.send(new DeleteCommand({ TableName: tableName(), Key: dcKey }));
    try {
      // Every record of the batch failed, so the invocation itself fails and SQS redelivers the batch.
      await expect(runImportWorker(api, [message as SQSRecord])).rejects.toThrow(/All records failed/);
    } finally {
      await db.send(new PutCommand({ TableName: tableName(), Item: dc }));
    }
    expect(await claimsHeldBy(txid, route)).toBeGreaterThan(0);
    expect(await runImportWorker(api, [message as SQSRecord])).toEqual({ batchItemFailures: [] });
    expect((await status(txid)).status).toBe(200);
  });
});
