import { DeleteMessageCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CfnEventSourceMapping, type CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as routes from '../../functions/api/routes/index';
import { accountKeys } from '../../functions/data/accounts';
import { db, tableName } from '../../functions/data/client';
import { importKeys } from '../../functions/data/imports';
import { getRouteHeader, replaceRouteHeader } from '../../functions/data/routes';
import * as channels from '../../functions/models/channels';
import { ERROR_CODES } from '../../functions/shared/error-codes';
import { REVISION_IMAGE_DAYS } from '../../functions/shared/resources';
import { importRoutes } from '../../functions/workers/import-routes/consumer';
import { createTestAccount } from '../support/accounts';
import { functionOf } from '../support/cdk';
import { call, expectError, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import {
  claimsHeldBy,
  exampleRoute,
  putUploadObject,
  receiveImportMessages,
  receiveWaiting,
  runImportWorker,
  waitForImport,
} from '../support/routes';

/**
 * Every import ends, whatever happens to its message: one the imports queue gives up (its DLQ) and one still
 * pending at its deadline are ended with 3016 and their ids released; an upload's arrival deadline holds for
 * when S3 received it, however late the worker gets to it. The import worker's event source is off:
 * the test hands the worker its messages (and spends receives) itself. Everything else runs as deployed: the
 * DLQ's consumer and the deadline checks have their event sources, the queue its redrive policy.
 */

/** The import POST's deadline, shortened from 6 hours. */
const DEADLINE_SECONDS = 20;
/** An upload link's lifetime and the arrival grace after it, shortened from 15 minutes each. */
const UPLOAD_LINK_SECONDS = 3;
const UPLOAD_GRACE_SECONDS = 3;
/** The import worker's timeout, shortened from 300 s: a run may start until this long before a deadline. */
const WORKER_TIMEOUT_SECONDS = 10;

let api: TestApi;
let acme: { accountId: string; key: string };

beforeAll(async () => {
  api = await startTestApi('import-ends', {
    customize: (deployed) => {
      for (const sliceName of ['routes/import', 'routes/revise'])
        functionOf(deployed, sliceName).addEnvironment('IMPORT_DEADLINE_SECONDS', String(DEADLINE_SECONDS));
      const uploads = functionOf(deployed, 'routes/upload');
      uploads.addEnvironment('IMPORT_UPLOAD_LINK_SECONDS', String(UPLOAD_LINK_SECONDS));
      uploads.addEnvironment('IMPORT_UPLOAD_ARRIVAL_GRACE_SECONDS', String(UPLOAD_GRACE_SECONDS));
      const worker = functionOf(deployed, 'workers/import-routes');
      (worker.node.defaultChild as CfnFunction).timeout = WORKER_TIMEOUT_SECONDS;
      const [mapping] = worker.node.findAll().filter((child) => child instanceof CfnEventSourceMapping);
      (mapping as CfnEventSourceMapping).enabled = false;
    },
  });
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }, { dcId: 'doomed' }, { dcId: 'lost' }]);
}, 120_000);

afterAll(() => api?.close());

async function accept(dcId: string, route: unknown): Promise<string> {
  const response = await call(api.url, 'POST', `/dcs/${dcId}/invoiced-routes`, {
    key: acme.key,
    body: { route },
  });
  return (expectSuccess(response, routes.importRoute, 202) as { txid: string }).txid;
}

/** Runs `run` while the DC's item is gone: the worker then fails after claiming, a failure SQS retries. */
async function withoutDc<T>(dcId: string, run: () => Promise<T>): Promise<T> {
  const { DeleteCommand, GetCommand, PutCommand } = await import('@aws-sdk/lib-dynamodb');
  const key = accountKeys.dc(acme.accountId, dcId);
  const { Item } = await db.send(new GetCommand({ TableName: tableName(), Key: key }));
  await db.send(new DeleteCommand({ TableName: tableName(), Key: key }));
  try {
    return await run();
  } finally {
    await db.send(new PutCommand({ TableName: tableName(), Item }));
  }
}

/** One run of the worker that fails after claiming the import's ids (its batch fails as a whole). */
async function failingRun(dcId: string, message: SQSRecord): Promise<void> {
  const result = await withoutDc(dcId, () => api.invoke(importRoutes, { Records: [message] }));
  expect(result).toMatchObject({ kind: 'functionError', errorType: 'FullBatchFailureError' });
}

async function queueDepth(queueUrl: string): Promise<number> {
  const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  try {
    const { Attributes = {} } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return (
      Number(Attributes.ApproximateNumberOfMessages) +
      Number(Attributes.ApproximateNumberOfMessagesNotVisible)
    );
  } finally {
    sqs.destroy();
  }
}

/** Imports the route again, the test running the worker: it succeeds, so every id of it was free. */
async function importsAgain(dcId: string, route: ReturnType<typeof exampleRoute>): Promise<void> {
  const txid = await accept(dcId, route);
  expect(await runImportWorker(api, await receiveImportMessages(api, 1))).toEqual({ batchItemFailures: [] });
  expect(expectSuccess(await waitForImport(api.url, acme.key, dcId, txid), routes.getImportStatus)).toEqual({
    txid,
    status: 'SUCCEEDED',
    route_id: route.id,
  });
}

describe('an import whose message the imports queue gives up', () => {
  it('ends FAILED with 3016 once its message is in the DLQ, its ids released for a new import', async () => {
    const route = exampleRoute('dead-1', { waypoints: 5 });
    const txid = await accept('doomed', route);
    // Received and left visible: every receive counts towards the DLQ, as Lambda's do while the function is
    // throttled.
    const [message] = await receiveWaiting(api, 'imports', { visibilityTimeoutSeconds: 0 });
    expect(message).toBeDefined();
    await failingRun('doomed', message as SQSRecord);
    expect(await claimsHeldBy(acme.accountId, txid, route)).toBeGreaterThan(0);

    const { maxReceiveCount } = channels.imports;
    let receives = 1;
    for (;;) {
      const received = await receiveWaiting(api, 'imports', { visibilityTimeoutSeconds: 0 });
      if (received.length === 0) break;
      receives += received.length;
      expect(receives).toBeLessThanOrEqual(maxReceiveCount);
    }
    // The receive after the last one moved the message to the DLQ, whose consumer ends the import.
    expect(receives).toBe(maxReceiveCount);

    const ended = await waitForImport(api.url, acme.key, 'doomed', txid, 90_000);
    expect(expectError(ended, 400, ERROR_CODES.IMPORT_ABANDONED.code)).toBe(
      `import ${txid} failed: the import could not be run: its worker failed on every delivery; nothing of it was kept, send it again`,
    );
    expect(await claimsHeldBy(acme.accountId, txid, route)).toBe(0);
    expect(await getRouteHeader(acme.accountId, route.id)).toBeUndefined();
    // The consumer deleted the message: the DLQ holds nothing (its alarm counts what was received from it).
    await expect.poll(() => queueDepth(api.resources.dlqUrls.imports), { timeout: 30_000 }).toBe(0);

    await importsAgain('doomed', route);
  }, 180_000);
});

describe('an import still pending at its deadline', () => {
  it('ends FAILED with 3016 when its message was lost, its ids released; a message too late for a run imports nothing', async () => {
    const lost = exampleRoute('lost-1', { waypoints: 5 });
    const late = exampleRoute('late-1', { waypoints: 5 });
    const acceptedAt = Date.now();
    const lostTxid = await accept('lost', lost);
    const lateTxid = await accept('dc-1', late);
    const messages = await receiveImportMessages(api, 2);
    const messageOf = (txid: string) => messages.find((m) => JSON.parse(m.body).txid === txid) as SQSRecord;

    // A run claims the ids and fails; then the message is lost (SQS dropped it at the end of its retention, or
    // a local runtime lost its queues), and nothing would ever run the import again.
    await failingRun('lost', messageOf(lostTxid));
    expect(await claimsHeldBy(acme.accountId, lostTxid, lost)).toBeGreaterThan(0);
    await loseImportMessage(messageOf(lostTxid));

    // The other message reaches the worker when a run could no longer end before the deadline: it is not run.
    const lastStart = acceptedAt + (DEADLINE_SECONDS - WORKER_TIMEOUT_SECONDS) * 1000;
    await new Promise((resolve) => setTimeout(resolve, lastStart + 1000 - Date.now()));
    expect(await runImportWorker(api, [messageOf(lateTxid)])).toEqual({ batchItemFailures: [] });

    const deadlineMessage =
      /^import imp_\w+ failed: the import was still pending at its deadline \S+Z; nothing of it was kept, send it again$/;
    for (const [dcId, txid, route] of [
      ['lost', lostTxid, lost],
      ['dc-1', lateTxid, late],
    ] as const) {
      const ended = await waitForImport(api.url, acme.key, dcId, txid, 3 * DEADLINE_SECONDS * 1000);
      expect(expectError(ended, 400, ERROR_CODES.IMPORT_ABANDONED.code)).toMatch(deadlineMessage);
      expect(await claimsHeldBy(acme.accountId, txid, route)).toBe(0);
      expect(await getRouteHeader(acme.accountId, route.id)).toBeUndefined();
    }

    await importsAgain('lost', lost);
  }, 180_000);
});

describe('a revision', () => {
  async function imported(dcId: string, id: string) {
    const route = exampleRoute(id, { waypoints: 5 });
    await importsAgain(dcId, route);
    return route;
  }
  /** PUTs a revision that keeps the route's first `keep` waypoints; its txid. */
  async function revise(dcId: string, route: ReturnType<typeof exampleRoute>, keep = 4): Promise<string> {
    const revised = { ...route, waypoints: route.waypoints.slice(0, keep) };
    const response = await call(api.url, 'PUT', `/dcs/${dcId}/routes/${route.id}/revision`, {
      key: acme.key,
      body: { route: revised },
    });
    return (expectSuccess(response, routes.reviseRoute, 202) as { txid: string }).txid;
  }

  const messageOf = (messages: SQSRecord[], txid: string) =>
    messages.find((m) => JSON.parse(m.body).txid === txid) as SQSRecord;

  it('accepted before the route’s latest revision is not applied after it: FAILED with 3107, the newer one kept', async () => {
    const route = await imported('dc-1', 'rev-order-1');
    const older = await revise('dc-1', route, 4);
    const newer = await revise('dc-1', route, 3);
    const messages = await receiveImportMessages(api, 2);
    // The older one's message comes late (a retry, a redelivery): after the newer one was applied.
    expect(await runImportWorker(api, [messageOf(messages, newer)])).toEqual({ batchItemFailures: [] });
    expect(await runImportWorker(api, [messageOf(messages, older)])).toEqual({ batchItemFailures: [] });

    const applied = await waitForImport(api.url, acme.key, 'dc-1', newer);
    expect(expectSuccess(applied, routes.getImportStatus)).toMatchObject({ status: 'SUCCEEDED' });
    const refused = await waitForImport(api.url, acme.key, 'dc-1', older);
    expect(expectError(refused, 400, ERROR_CODES.REVISION_SUPERSEDED.code)).toContain(
      `revision '${newer}' of the route, accepted at`,
    );
    const header = await getRouteHeader(acme.accountId, route.id);
    expect(header?.waypointIds).toEqual(route.waypoints.slice(0, 3).map((waypoint) => waypoint.id));
    expect(header?.revisionTxid).toBeUndefined();
  }, 60_000);

  it('of a route another revision holds waits its turn: queued again within seconds, then applied', async () => {
    const route = await imported('dc-1', 'rev-turn-1');
    const txid = await revise('dc-1', route);
    const [message] = await receiveImportMessages(api, 1);
    // Another revision holds the route's lock, as while it is applied.
    const header = await getRouteHeader(acme.accountId, route.id);
    if (!header) throw new Error(`route ${route.id} was not imported`);
    const held = { ...header, revisionTxid: 'rev_holding', version: header.version + 1 };
    expect(await replaceRouteHeader(held, header.version)).toBe(true);

    expect(await runImportWorker(api, [message as SQSRecord])).toEqual({ batchItemFailures: [] });
    const status = await call(api.url, 'GET', `/dcs/dc-1/routes/import-status/${txid}`, { key: acme.key });
    expect(status.status).toBe(202);
    // The other revision is in: the route unlocked. The waiting one's message is back within seconds (not
    // after the queue's 30-minute visibility timeout), and applies.
    expect(await replaceRouteHeader(header, held.version)).toBe(true);
    const [again] = await receiveImportMessages(api, 1);
    expect(JSON.parse((again as SQSRecord).body).txid).toBe(txid);
    expect(await runImportWorker(api, [again as SQSRecord])).toEqual({ batchItemFailures: [] });
    const applied = await waitForImport(api.url, acme.key, 'dc-1', txid);
    expect(expectSuccess(applied, routes.getImportStatus)).toMatchObject({
      status: 'SUCCEEDED',
      changes: { waypoints: { removed: [route.waypoints[4]?.id] } },
    });
  }, 60_000);

  it('still pending at its deadline ends FAILED with 3016, the route as it was and unlocked; a run too late is not started', async () => {
    const lostRoute = await imported('lost', 'rev-lost-1');
    const lateRoute = await imported('dc-1', 'rev-late-1');
    const lostTxid = await revise('lost', lostRoute);
    const lateTxid = await revise('dc-1', lateRoute);
    // Both deadlines are at most DEADLINE_SECONDS from here.
    const acceptedBy = Date.now();
    const messages = await receiveImportMessages(api, 2);
    const messageOf = (txid: string) => messages.find((m) => JSON.parse(m.body).txid === txid) as SQSRecord;
    // One message is lost: only the deadline check ends that revision.
    await loseImportMessage(messageOf(lostTxid));
    // The other reaches the worker when a run could no longer end before the deadline: it is not run (a run
    // would apply it: the deadline check at DEADLINE_SECONDS only ends a revision still pending).
    const lastStart = acceptedBy + (DEADLINE_SECONDS - WORKER_TIMEOUT_SECONDS) * 1000;
    await new Promise((resolve) => setTimeout(resolve, lastStart + 3000 - Date.now()));
    expect(await runImportWorker(api, [messageOf(lateTxid)])).toEqual({ batchItemFailures: [] });

    for (const [dcId, txid, route] of [
      ['lost', lostTxid, lostRoute],
      ['dc-1', lateTxid, lateRoute],
    ] as const) {
      const ended = await waitForImport(api.url, acme.key, dcId, txid, 3 * DEADLINE_SECONDS * 1000);
      expect(expectError(ended, 400, ERROR_CODES.IMPORT_ABANDONED.code)).toMatch(
        /^import rev_\w+ failed: the revision was still pending at its deadline \S+Z; the route is as it was, send it again$/,
      );
      const header = await getRouteHeader(acme.accountId, route.id);
      expect(header?.revisionTxid).toBeUndefined();
      expect(header?.waypointIds).toEqual(route.waypoints.map((waypoint) => waypoint.id));
    }
  }, 180_000);

  it(`whose before image is gone after its ${REVISION_IMAGE_DAYS} days ends FAILED with 3103 and leaves the route locked`, async () => {
    const route = await imported('dc-1', 'rev-image-lost-1');
    const txid = await revise('dc-1', route);
    const [message] = await receiveImportMessages(api, 1);
    // As a run stopped after writing rows left it, REVISION_IMAGE_DAYS ago: the header locked by the
    // revision, and no before image (the bucket's lifecycle rule removed it).
    const header = await getRouteHeader(acme.accountId, route.id);
    if (!header) throw new Error(`route ${route.id} was not imported`);
    expect(
      await replaceRouteHeader(
        { ...header, revisionTxid: txid, version: header.version + 1 },
        header.version,
      ),
    ).toBe(true);
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: importKeys.record(acme.accountId, txid),
        UpdateExpression: 'SET created_at = :long_ago',
        ExpressionAttributeValues: { ':long_ago': Date.now() - (REVISION_IMAGE_DAYS * 24 + 1) * 3600 * 1000 },
      }),
    );

    expect(await runImportWorker(api, [message as SQSRecord])).toEqual({ batchItemFailures: [] });
    const ended = await waitForImport(api.url, acme.key, 'dc-1', txid);
    expect(expectError(ended, 400, ERROR_CODES.REVISION_IMAGE_LOST.code)).toContain(
      `route '${route.id}' may hold some of its rows and stays locked`,
    );
    expect((await getRouteHeader(acme.accountId, route.id))?.revisionTxid).toBe(txid);
    const change = await call(api.url, 'DELETE', `/dcs/dc-1/routes/${route.id}/driver-assignment`, {
      key: acme.key,
    });
    expectError(change, 409, ERROR_CODES.ROUTE_BEING_REVISED.code);
    expect(change.headers.get('retry-after')).toBe('2');
  }, 120_000);
});

describe('an upload', () => {
  interface Upload {
    txid: string;
    upload_url: string;
    upload_expiration_timestamp: number;
  }
  const startUpload = async (): Promise<Upload> =>
    expectSuccess(
      await call(api.url, 'POST', '/dcs/dc-1/invoiced-routes/uploads', { key: acme.key }),
      routes.createImportUpload,
      202,
    );
  const arrivalDeadline = (upload: Upload) =>
    upload.upload_expiration_timestamp + UPLOAD_GRACE_SECONDS * 1000;
  const until = (at: number) => new Promise((resolve) => setTimeout(resolve, at - Date.now()));

  it('made in time is imported, however long after its arrival deadline the worker gets to it', async () => {
    const route = exampleRoute('upload-in-time', { waypoints: 3 });
    const upload = await startUpload();
    const put = await fetch(upload.upload_url, { method: 'PUT', body: JSON.stringify({ route }) });
    expect(put.status).toBe(200);
    // The imports queue is busy: the worker gets to the upload's notification after the arrival deadline.
    await until(arrivalDeadline(upload) + 1000);
    expect(await runImportWorker(api, await receiveImportMessages(api, 1))).toEqual({
      batchItemFailures: [],
    });
    expect(
      expectSuccess(await waitForImport(api.url, acme.key, 'dc-1', upload.txid), routes.getImportStatus),
    ).toEqual({ txid: upload.txid, status: 'SUCCEEDED', route_id: route.id });
  }, 60_000);

  it('made after its arrival deadline fails the import with 3015 and imports nothing', async () => {
    const route = exampleRoute('upload-too-late', { waypoints: 3 });
    const upload = await startUpload();
    await until(arrivalDeadline(upload) + 1000);
    // A PUT that started before the link expired and took longer than the grace: the operator writes it here.
    await putUploadObject(api, upload.upload_url, route);
    expect(await runImportWorker(api, await receiveImportMessages(api, 1))).toEqual({
      batchItemFailures: [],
    });
    const failed = await waitForImport(api.url, acme.key, 'dc-1', upload.txid);
    expect(expectError(failed, 400, ERROR_CODES.UPLOAD_EXPIRED.code)).toMatch(/upload link expired/);
    expect(await getRouteHeader(acme.accountId, route.id)).toBeUndefined();
  }, 60_000);
});

/** Deletes a received import message, as SQS drops one at the end of its retention: nothing runs it again. */
async function loseImportMessage(message: SQSRecord): Promise<void> {
  const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  await sqs.send(
    new DeleteMessageCommand({
      QueueUrl: api.resources.queueUrls.imports,
      ReceiptHandle: message.receiptHandle,
    }),
  );
  sqs.destroy();
}
