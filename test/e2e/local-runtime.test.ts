import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CfnEventSourceMapping, type CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as drivers from '../../functions/api/drivers/index';
import { accountKeys } from '../../functions/data/accounts';
import { db, tableName } from '../../functions/data/client';
import { createDriver as create } from '../../functions/domain/drivers';
import { sendTestEvent } from '../../functions/domain/webhooks';
import * as channels from '../../functions/models/channels';
import { deliverWebhooks } from '../../functions/workers/deliver-webhooks/consumer';
import { importRoutes } from '../../functions/workers/import-routes/consumer';
import { createTestAccount } from '../support/accounts';
import { functionOf, revokeFromRole } from '../support/cdk';
import { call, callRaw, expectError, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { exampleRoute, waitForImport } from '../support/routes';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * The local runtime runs the app as `cdk deploy` would: each value changed in CDK below (an environment
 * variable, a grant, a timeout) changes what runs locally with no other edit. Every AWS call a function makes
 * is checked against its role's policy as synthesized; cold starts and each request's log lines are the
 * function's own, as in CloudWatch.
 */

let api: TestApi;
let acme: { accountId: string; key: string };
let globex: { accountId: string; key: string };
let silent: WebhookReceiver;

beforeAll(async () => {
  api = await startTestApi('local-runtime', {
    streams: true,
    pollerConcurrency: 4,
    customize: (routes) => {
      functionOf(routes, 'drivers/get').addEnvironment('POWERTOOLS_LOG_LEVEL', 'DEBUG');
      revokeFromRole(functionOf(routes, 'drivers/create'), 'dynamodb:PutItem');
      // Shorter than the webhook timeout (10 s): Lambda ends the invocation first, and the message is handed
      // out again once the (shortened) visibility timeout has passed.
      const delivery = functionOf(routes, 'workers/deliver-webhooks');
      (delivery.node.defaultChild as CfnFunction).timeout = 2;
      (routes.stateful.queueOf(channels.deliveries).queue.node.defaultChild as CfnQueue).visibilityTimeout =
        4;
      // One delivery per invocation, at most two invocations at once (the runtime would allow four here).
      const [mapping] = delivery.node.findAll().filter((child) => child instanceof CfnEventSourceMapping);
      Object.assign(mapping as CfnEventSourceMapping, {
        batchSize: 1,
        scalingConfig: { maximumConcurrency: 2 },
      });
      // A failed import is retried after the imports queue's visibility timeout (shortened from 6 minutes). 10 s
      // for the worker: a shorter timeout ends every attempt on a busy machine, and the import fails for good.
      (functionOf(routes, 'workers/import-routes').node.defaultChild as CfnFunction).timeout = 10;
      (routes.stateful.queueOf(channels.imports).queue.node.defaultChild as CfnQueue).visibilityTimeout = 12;
    },
  });
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }]);
  globex = await createTestAccount('Globex', [{ dcId: 'dc-1' }]);
  silent = await startWebhookReceiver(() => new Promise(() => {}));
});

afterAll(async () => {
  await silent?.close();
  await api?.close();
});

const linesOf = (row: { module: string }) =>
  api.logs.filter((record) => record.functionName === api.functionName(row)).map((record) => record.line);

async function createDriver(key: string, driverId: string) {
  const { accountId } = key === acme.key ? acme : globex;
  await create({ accountId, dcId: 'dc-1', driverId }, { name: driverId });
}

describe('the deployed configuration, followed locally', () => {
  it('gives a function exactly the environment variables its template gives it', async () => {
    await createDriver(acme.key, 'env-1');
    expectSuccess(
      await call(api.url, 'GET', '/dcs/dc-1/drivers/env-1', { key: acme.key }),
      drivers.getDriver,
    );
    expectSuccess(await call(api.url, 'GET', '/dcs/dc-1/drivers', { key: acme.key }), drivers.listDrivers);
    // POWERTOOLS_LOG_LEVEL=DEBUG was set in CDK on drivers/get only.
    expect(linesOf(drivers.getDriver).some((line) => line.includes('"level":"DEBUG"'))).toBe(true);
    expect(linesOf(drivers.listDrivers).some((line) => line.includes('"level":"DEBUG"'))).toBe(false);
  });

  it("makes the table with the stream its template declares, which the deployment's pipes read", async () => {
    const client = new DynamoDBClient({});
    const { Table } = await client.send(new DescribeTableCommand({ TableName: api.tableName }));
    client.destroy();
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
    expect(Table?.LatestStreamArn).toMatch(/\/stream\//);
  });

  it('fails a call whose grant was removed in CDK as AWS does, with AccessDeniedException', async () => {
    const response = await call(api.url, 'POST', '/dcs/dc-1/drivers', {
      key: acme.key,
      body: { driver_id: 'denied', driver_name: 'Denied' },
    });
    expectError(response, 500, 1000);
    const denial = linesOf(drivers.createDriver).find((line) => line.includes('AccessDeniedException'));
    expect(denial).toMatch(/is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:/);
    expectError(await call(api.url, 'GET', '/dcs/dc-1/drivers/denied', { key: acme.key }), 404, 1003);
  });

  it('ends an invocation at the timeout set in CDK, and SQS hands its message out again', async () => {
    const created = await call(api.url, 'POST', '/webhooks', {
      key: acme.key,
      body: { webhook_url: silent.url, events: ['ROUTE_CREATED'], dc_ids: ['dc-1'] },
    });
    const { webhook } = created.body.data as { webhook: { id: string } };
    expect((await call(api.url, 'POST', `/webhooks/${webhook.id}/test`, { key: acme.key })).status).toBe(200);
    // Two timeouts: the second invocation got the same message back after its visibility timeout.
    const timeouts = () =>
      linesOf(deliverWebhooks).filter((line) => line.includes('Task timed out after 2.00 seconds'));
    await waitFor('two deliveries timed out', () => timeouts().length >= 2);
  });

  it('leaves a failed batch to SQS: it comes back after the visibility timeout and the retry succeeds', async () => {
    const { DeleteCommand, GetCommand, PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const dcKey = accountKeys.dc(acme.accountId, 'dc-1');
    const { Item: dc } = await db.send(new GetCommand({ TableName: tableName(), Key: dcKey }));
    const before = linesOf(importRoutes).length;
    const accepted = await call(api.url, 'POST', '/dcs/dc-1/invoiced-routes', {
      key: acme.key,
      body: { route: exampleRoute('retried-1', { waypoints: 1 }) },
    });
    const { txid } = accepted.body.data as { txid: string };
    // The DC is gone when the worker first runs: it fails the batch (not its last attempt), and SQS keeps it.
    // On a busy machine the first attempt may instead pass its timeout: that too leaves the message to SQS.
    await db.send(new DeleteCommand({ TableName: tableName(), Key: dcKey }));
    try {
      await waitFor('the first attempt to fail', () =>
        linesOf(importRoutes)
          .slice(before)
          .some((line) => line.includes('All records failed processing') || line.includes('Task timed out')),
      );
    } finally {
      await db.send(new PutCommand({ TableName: tableName(), Item: dc }));
    }
    const finished = await waitForImport(api.url, acme.key, 'dc-1', txid);
    expect(finished.status, finished.text).toBe(200);
    // The worker writes SUCCEEDED, then logs: its line may come a moment after the status.
    const processed = () =>
      linesOf(importRoutes).find((line) => line.includes(txid) && line.includes('import processed'));
    await waitFor('the import processed', () => processed() !== undefined);
    expect(Number(processed()?.match(/"receiveCount":(\d+)/)?.[1])).toBeGreaterThanOrEqual(2);
  }, 240_000);
});

async function waitFor(what: string, condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    expect(Date.now(), `waited ${timeoutMs} ms for ${what}`).toBeLessThan(deadline);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('event source mappings', () => {
  it('never run more invocations at once than the maximum concurrency set in CDK', async () => {
    const created = await call(api.url, 'POST', '/webhooks', {
      key: acme.key,
      body: { webhook_url: silent.url, events: ['ROUTE_STARTED'], dc_ids: ['dc-1'] },
    });
    const { webhook } = created.body.data as { webhook: { id: string } };
    // Six deliveries that each hang until the function's 2 s timeout.
    for (let i = 0; i < 6; i++) await sendTestEvent(acme.accountId, webhook.id);
    const worker = api.functionName(deliverWebhooks);
    let most = 0;
    const until = Date.now() + 6000;
    while (Date.now() < until) {
      most = Math.max(most, api.cloud.lambda.stats(worker).busy);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(most).toBe(2);
  });
});

describe('execution environments', () => {
  it('shows a cold start in the log, and serves the next request warm', async () => {
    await createDriver(acme.key, 'cold-1');
    const before = linesOf(drivers.getDriverLocation).length;
    for (let i = 0; i < 2; i++)
      await call(api.url, 'GET', '/dcs/dc-1/drivers/cold-1/location', { key: acme.key });
    const reports = linesOf(drivers.getDriverLocation)
      .slice(before)
      .filter((line) => line.startsWith('REPORT'));
    expect(reports).toHaveLength(2);
    expect(reports[0]).toMatch(/Init Duration: [\d.]+ ms/);
    expect(reports[1]).not.toMatch(/Init Duration/);
  });

  it('keeps each request’s log keys to its own lines when requests of two accounts run at once', async () => {
    await createDriver(acme.key, 'same-id');
    await createDriver(globex.key, 'same-id');
    const accountOf = new Map<string, string>();
    await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const caller = i % 2 === 0 ? acme : globex;
        const response = await callRaw(api.url, 'GET', '/dcs/dc-1/drivers/same-id', {
          headers: { Authorization: `Bearer ${caller.key}` },
        });
        expect(response.status).toBe(200);
        accountOf.set(response.headers.get('x-amzn-requestid') as string, caller.accountId);
      }),
    );
    const handled = linesOf(drivers.getDriver)
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { message: string; request_id?: string; account_id?: string })
      .filter((line) => line.message === 'request handled' && accountOf.has(line.request_id ?? ''));
    expect(handled).toHaveLength(12);
    for (const line of handled) expect(line.account_id).toBe(accountOf.get(line.request_id as string));
  });
});
