import { randomBytes } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelName, DeliveryMessage } from '../../functions/models/channels';
import { tracer } from '../../functions/shared/observability';
import type { ConsumerDefinition } from '../../functions/workers/define';
import { deliverWebhooks } from '../../functions/workers/deliver-webhooks/consumer';
import { exportAnalytics } from '../../functions/workers/export-analytics/consumer';
import { importRoutes } from '../../functions/workers/import-routes/consumer';
import { sqsRecord } from '../../local/event-sources/sqs-records';
import { createTestAccount } from '../support/accounts';
import { allFunctions } from '../support/cdk';
import { type ApiResponse, type CallOptions, call, expectError } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { channelNamed, exampleRoute, receiveImportMessages } from '../support/routes';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

/**
 * What the functions write to stdout/stderr (their CloudWatch log streams), from real handlers over the local
 * API and the workers driven by the test: JSON log lines carrying the request id, account, DC and driver; EMF
 * metrics with the right counts; and never an API key, login token, webhook secret or Authorization header,
 * errors included. The functions log at DEBUG here (POWERTOOLS_LOG_LEVEL set in CDK for this file) and print
 * their EMF lines (which the local runtime otherwise turns off, having no CloudWatch).
 */

const NAMESPACE = 'DeliveryRouteService';
const SERVICE = 'delivery-route-service';
const ROUTE_ID = 'obs-route-1';
const DRIVER_ID = 'd-obs';
const DRIVER_TOKEN = `obs-login-${randomBytes(32).toString('hex')}`;
/** A login token sent in a request body (createDriver) while the table is gone: the body is never logged. */
const BODY_TOKEN = `obs-body-${randomBytes(32).toString('hex')}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Line = Record<string, unknown>;

let api: TestApi;
let acme: { accountId: string; key: string };
/** An account whose key is first used after the table is gone: its authorizer lookup fails. */
let globex: { accountId: string; key: string };
const secrets: string[] = [DRIVER_TOKEN, BODY_TOKEN];
const receivers: WebhookReceiver[] = [];
const webhooks: { ok: { id: string; secret: string }; failing: { id: string; secret: string } } = {} as never;

// ---------------------------------------------------------------------------------------------------
// Output: every line the functions wrote (not the runtime's START/END/REPORT lines)
// ---------------------------------------------------------------------------------------------------

/**
 * Lambda's Node.js runtime logs an error a handler throws in its own text format
 * (`<time>\t<request id>\tERROR\tInvoke Error \t<JSON>`); every other line is the function's own.
 */
const INVOKE_ERROR = /^\S+\t[0-9a-f-]{36}\tERROR\tInvoke Error \t(\{.*\})$/;

/** Every line written so far, in order. */
const allLines = () =>
  api.logs
    .filter((record) => record.stream !== 'platform' && record.line.trim() !== '')
    .map((record) => record.line);

/**
 * Runs `action` and returns the lines written meanwhile, each parsed: the functions' JSON lines, and the
 * runtime's Invoke Error lines as `{ invokeError: <its JSON> }` (the test fails on any other line).
 */
async function linesDuring(action: () => Promise<unknown>): Promise<Line[]> {
  const from = allLines().length;
  await action();
  return allLines().slice(from).map(parseLine);
}

function parseLine(line: string): Line {
  const invokeError = INVOKE_ERROR.exec(line)?.[1];
  try {
    return invokeError ? { invokeError: JSON.parse(invokeError) } : (JSON.parse(line) as Line);
  } catch {
    throw new Error(`neither a JSON line nor the runtime's Invoke Error line: ${line}`);
  }
}

const logLines = (lines: Line[]) => lines.filter((line) => !('_aws' in line));
const withMessage = (lines: Line[], message: string) => logLines(lines).filter((l) => l.message === message);

/** The EMF blobs' values of one metric, summed (Powertools lists repeated values of a count). */
function metricTotal(lines: Line[], name: string): number | undefined {
  let total: number | undefined;
  for (const line of lines) {
    const emf = line._aws as
      | {
          CloudWatchMetrics: {
            Namespace: string;
            Dimensions: string[][];
            Metrics: { Name: string; Unit: string }[];
          }[];
        }
      | undefined;
    const directive = emf?.CloudWatchMetrics[0];
    const metric = directive?.Metrics.find((candidate) => candidate.Name === name);
    if (!directive || !metric) continue;
    expect(directive.Namespace).toBe(NAMESPACE);
    expect(directive.Dimensions).toEqual([['service']]);
    expect(line.service).toBe(SERVICE);
    expect(metric.Unit).toBe('Count');
    const value = line[name] as number | number[];
    total = (total ?? 0) + [value].flat().reduce((sum, v) => sum + v, 0);
  }
  return total;
}

function expectNoSecret(lines: Line[]) {
  const text = lines.map((line) => JSON.stringify(line)).join('\n');
  for (const secret of [acme.key, globex.key, ...secrets]) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/Bearer |"authorization"\s*:/i);
}

// ---------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------

const request = (method: string, path: string, options: CallOptions = {}) =>
  call(api.url, method, path, options);
const asAcme = (method: string, path: string, body?: unknown) =>
  request(method, path, { key: acme.key, body });
const asDriver = (method: string, path: string, body?: unknown) =>
  request(method, path, { key: DRIVER_TOKEN, body });

function expectStatus(response: ApiResponse, status: number) {
  expect(response.status, response.text).toBe(status);
  return response.body.data;
}

async function receiveFrom(queue: ChannelName): Promise<SQSRecord> {
  const queueUrl = api.resources.queueUrls[queue];
  const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  try {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }),
      );
      const [message] = Messages;
      if (message) return recordOn(queue, message.MessageId as string, message.Body as string);
      expect(Date.now(), `no message on ${queueUrl}`).toBeLessThan(deadline);
    }
  } finally {
    sqs.destroy();
  }
}

/** A message of the queue as its event source hands it to the worker. */
function recordOn(queue: ChannelName, messageId: string, body: string): SQSRecord {
  return sqsRecord({
    messageId,
    receiptHandle: messageId,
    body,
    queueArn: api.cloud.queue(channelNamed(queue)).arn,
  });
}

/** Invokes a worker as its SQS event source would, with these records. */
async function runWorker(worker: ConsumerDefinition, records: SQSRecord[]) {
  const result = await api.invoke(worker, { Records: records });
  if (result.kind !== 'success')
    throw new Error(`the ${worker.queue.name} worker failed: ${JSON.stringify(result)}`);
  return result.payload as { batchItemFailures: unknown[] };
}

async function createWebhook(receiver: WebhookReceiver) {
  const response = await asAcme('POST', '/webhooks', {
    webhook_url: receiver.url,
    dc_ids: ['dc-1'],
    events: ['ROUTE_STARTED'],
  });
  const { webhook } = expectStatus(response, 200) as { webhook: { id: string; secret: string } };
  secrets.push(webhook.secret);
  return webhook;
}

// ---------------------------------------------------------------------------------------------------
// Setup
// ---------------------------------------------------------------------------------------------------

beforeAll(async () => {
  api = await startTestApi('observability', {
    pollers: false,
    metrics: true,
    customize: (routes) => {
      for (const fn of allFunctions(routes)) fn.addEnvironment('POWERTOOLS_LOG_LEVEL', 'DEBUG');
    },
  });
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }]);
  globex = await createTestAccount('Globex', [{ dcId: 'gx-1' }]);
  expectStatus(
    await asAcme('POST', '/dcs/dc-1/drivers', {
      driver_id: DRIVER_ID,
      driver_name: 'Obs Driver',
      login_token: DRIVER_TOKEN,
    }),
    200,
  );
  const ok = await startWebhookReceiver(() => 200);
  const failing = await startWebhookReceiver(() => 500);
  receivers.push(ok, failing);
  webhooks.ok = await createWebhook(ok);
  webhooks.failing = await createWebhook(failing);
});

afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await api?.close();
});

// ---------------------------------------------------------------------------------------------------
// Tests: they run in order, on one route (imported, driven to its end, exported), then without a table
// ---------------------------------------------------------------------------------------------------

describe('the function code observability', () => {
  it('does not trace outside Lambda: no Tracer is loaded, so nothing reaches for an X-Ray daemon', async () => {
    expect(tracer).toBeUndefined();
  });

  it('counts an accepted import, and logs the request with its request id, account, DC and operation', async () => {
    let txid = '';
    const lines = await linesDuring(async () => {
      const response = await asAcme('POST', '/dcs/dc-1/invoiced-routes', {
        route: exampleRoute(ROUTE_ID, { driverId: DRIVER_ID, waypoints: 1 }),
      });
      txid = (expectStatus(response, 202) as { txid: string }).txid;
    });
    expect(metricTotal(lines, 'ImportsAccepted')).toBe(1);

    const [handled] = withMessage(lines, 'request handled');
    expect(handled).toMatchObject({
      level: 'DEBUG',
      service: SERVICE,
      operation: 'importRoute',
      account_id: acme.accountId,
      dc_id: 'dc-1',
      txid,
      status_code: 202,
      function_name: api.cloud.functionOf('functions/api/routes/import/handler.ts').name,
    });
    expect(handled?.request_id).toMatch(UUID);
    expectNoSecret(lines);
  });

  it('counts the imports the worker finishes, succeeded and failed, with the import ids on its lines', async () => {
    // The same route id again, accepted before the first is imported: the worker fails it (3005).
    expectStatus(await asAcme('POST', '/dcs/dc-1/invoiced-routes', { route: exampleRoute(ROUTE_ID) }), 202);
    const [accepted, duplicate] = await receiveImportMessages(api, 2);
    const succeeded = await linesDuring(() => runWorker(importRoutes, [accepted as SQSRecord]));
    expect(metricTotal(succeeded, 'ImportsSucceeded')).toBe(1);
    expect(metricTotal(succeeded, 'ImportsFailed')).toBeUndefined();
    const txid = (JSON.parse((accepted as SQSRecord).body) as { txid: string }).txid;
    expect(withMessage(succeeded, 'import processed')).toEqual([
      expect.objectContaining({ account_id: acme.accountId, dc_id: 'dc-1', txid, outcome: 'SUCCEEDED' }),
    ]);

    const failed = await linesDuring(() => runWorker(importRoutes, [duplicate as SQSRecord]));
    expect(metricTotal(failed, 'ImportsFailed')).toBe(1);
    expect(metricTotal(failed, 'ImportsSucceeded')).toBeUndefined();
    expect(withMessage(failed, 'import processed')).toEqual([
      expect.objectContaining({ account_id: acme.accountId, outcome: 'FAILED' }),
    ]);
    // A redelivery of a finished import counts nothing more.
    const again = await linesDuring(() => runWorker(importRoutes, [duplicate as SQSRecord]));
    expect(metricTotal(again, 'ImportsFailed')).toBeUndefined();
    expectNoSecret([...succeeded, ...failed, ...again]);
  });

  it('logs driver-app requests with the driver and its DC, never the login token', async () => {
    const now = Date.now();
    const lines = await linesDuring(async () => {
      expectStatus(await asDriver('POST', `/driver/routes/${ROUTE_ID}/start`, { timestamp: now }), 200);
      expectStatus(
        await asDriver('POST', `/driver/routes/${ROUTE_ID}/waypoints/${ROUTE_ID}-wp-0/attempts`, {
          id: 'att-1',
          timestamp: now + 1,
          status: 'SUCCESSFUL',
        }),
        200,
      );
      expectStatus(await asDriver('POST', `/driver/routes/${ROUTE_ID}/finish`, { timestamp: now + 2 }), 200);
    });
    const handled = withMessage(lines, 'request handled');
    expect(handled.map((line) => line.operation)).toEqual([
      'startDriverRoute',
      'recordDriverAttempt',
      'finishDriverRoute',
    ]);
    for (const line of handled) {
      expect(line).toMatchObject({ account_id: acme.accountId, dc_id: 'dc-1', driver_id: DRIVER_ID });
      expect(line.request_id).toMatch(UUID);
    }
    expectNoSecret(lines);
  });

  it('counts each webhook delivery attempt as succeeded or failed, and never logs a secret', async () => {
    const event = {
      event_id: `evt-obs-${randomBytes(4).toString('hex')}`,
      type: 'ROUTE_STARTED' as const,
      dc_id: 'dc-1',
      route_id: ROUTE_ID,
      sequence: 2,
      occurred_at: Date.now(),
      details: { driver_id: 'obs-driver', started_timestamp: Date.now() },
    };
    const message = (webhookId: string): DeliveryMessage => ({
      account_id: acme.accountId,
      webhook_id: webhookId,
      event,
      attempt: 1,
    });
    const lines = await linesDuring(async () => {
      const result = await runWorker(deliverWebhooks, [
        recordOn('deliveries', 'm-ok', JSON.stringify(message(webhooks.ok.id))),
        recordOn('deliveries', 'm-failing', JSON.stringify(message(webhooks.failing.id))),
      ]);
      expect(result.batchItemFailures).toEqual([]);
    });
    expect(receivers[0]?.deliveries).toHaveLength(1);
    expect(receivers[1]?.deliveries).toHaveLength(1);
    expect(metricTotal(lines, 'WebhookDeliveriesSucceeded')).toBe(1);
    expect(metricTotal(lines, 'WebhookDeliveriesFailed')).toBe(1);
    // Two records in one batch: each line names its own webhook and account.
    expect(withMessage(lines, 'webhook delivery failed; retry queued')).toEqual([
      expect.objectContaining({
        account_id: acme.accountId,
        dc_id: 'dc-1',
        webhook_id: webhooks.failing.id,
        error: 'HTTP 500',
      }),
    ]);
    expect(
      withMessage(lines, 'delivery processed')
        .map((line) => line.webhook_id)
        .sort(),
    ).toEqual([webhooks.ok.id, webhooks.failing.id].sort());
    expectNoSecret(lines);
  });

  it('counts the rows an analytics export wrote', async () => {
    const response = await asAcme('POST', '/analytics/download-requests', {
      dc_ids: ['dc-1'],
      from_date: '2026-11-01',
      to_date: '2026-11-30',
      analytics_types: ['ROUTE_ANALYTICS', 'ATTEMPT_ANALYTICS'],
    });
    const { download_request_txid: txid } = expectStatus(response, 200) as { download_request_txid: string };
    const record = await receiveFrom('analytics');
    const lines = await linesDuring(() => runWorker(exportAnalytics, [record]));

    // The value is what the files hold: one route row and one attempt row.
    const files = expectStatus(await asAcme('GET', `/analytics/download-requests/${txid}/files`), 200) as {
      download_request_files: { download_link: string }[];
    };
    let rows = 0;
    for (const file of files.download_request_files) {
      const csv = await (await fetch(file.download_link)).text();
      rows += (parse(csv, { columns: true }) as unknown[]).length;
    }
    expect(rows).toBe(2);
    expect(metricTotal(lines, 'AnalyticsRowsExported')).toBe(rows);
    expect(withMessage(lines, 'analytics export processed')).toEqual([
      expect.objectContaining({ account_id: acme.accountId, txid, outcome: 'SUCCEEDED' }),
    ]);
    expectNoSecret(lines);
  });

  describe('when the table is gone', () => {
    beforeAll(async () => {
      await new DynamoDBClient({}).send(new DeleteTableCommand({ TableName: api.tableName }));
    });

    it('logs an endpoint failure at ERROR with the request id of the 500, the account and the DC', async () => {
      let message = '';
      const lines = await linesDuring(async () => {
        message = expectError(await asAcme('GET', `/dcs/dc-1/drivers/${DRIVER_ID}`), 500, 1000);
      });
      const requestId = message.match(/request id ([0-9a-f-]{36})/)?.[1];
      const [error] = withMessage(lines, 'unhandled error');
      expect(error).toMatchObject({
        level: 'ERROR',
        request_id: requestId,
        operation: 'getDriver',
        account_id: acme.accountId,
        dc_id: 'dc-1',
        error: expect.objectContaining({ name: 'ResourceNotFoundException' }),
      });
      expectNoSecret(lines);
    });

    it('logs neither a body with a login token nor a driver token when those requests fail', async () => {
      const lines = await linesDuring(async () => {
        const created = await asAcme('POST', '/dcs/dc-1/drivers', {
          driver_id: 'd-2',
          driver_name: 'Two',
          login_token: BODY_TOKEN,
        });
        expectError(created, 500, 1000);
        expectError(await asDriver('GET', '/driver/routes'), 500, 1000);
      });
      const errors = withMessage(lines, 'unhandled error');
      expect(errors.map((line) => line.operation)).toEqual(['createDriver', 'listDriverRoutes']);
      expectNoSecret(lines);
    });

    it('logs an authorizer failure without the key', async () => {
      const lines = await linesDuring(async () => {
        const response = await request('GET', '/dcs', { key: globex.key });
        expect(response.status).toBe(500);
      });
      const [failure] = withMessage(lines, 'API key lookup failed');
      expect(failure).toMatchObject({ level: 'ERROR', path: '/dcs' });
      expect(failure?.request_id).toMatch(UUID);
      expectNoSecret(lines);
    });
  });

  it('wrote only JSON lines (and the runtime its Invoke Error lines), none with a key, token or secret', () => {
    const lines = allLines();
    expect(lines.length).toBeGreaterThan(20);
    const parsed = lines.map(parseLine);
    expectNoSecret(parsed);
    // The authorizer ran once per key (API Gateway caches it); its line and the handler's that followed
    // carry the same API Gateway request id.
    const [authorized] = withMessage(parsed, 'API key accepted');
    expect(authorized).toMatchObject({
      level: 'DEBUG',
      account_id: acme.accountId,
      path: '/dcs/dc-1/drivers',
    });
    expect(authorized?.request_id).toMatch(UUID);
    expect(withMessage(parsed, 'request handled')).toContainEqual(
      expect.objectContaining({ request_id: authorized?.request_id, operation: 'createDriver' }),
    );
    // The flushes without application metrics went to DEBUG, not to plain-text warnings.
    expect(withMessage(parsed, 'request handled').length).toBeGreaterThan(5);
  });
});
