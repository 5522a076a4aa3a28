import {
  GetQueueAttributesCommand,
  type QueueAttributeName,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as routes from '../../functions/api/routes/index';
import { ERROR_CODES } from '../../functions/shared/error-codes';
import { MAX_BODY_BYTES } from '../../functions/shared/limits';
import { functionOf } from '../support/cdk';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { expectError, expectSuccess } from '../support/http';
import { exampleRoute, putUploadObject, waitForImport } from '../support/routes';

/** Short enough for a test to outwait, long enough for a large PUT under load to start in time. */
const LINK_SECONDS = 10;
/** The test outwaits it too: a PUT that outlasts its link by this much still counts. */
const ARRIVAL_GRACE_SECONDS = 3;

const fx = useTestApi('route-upload', {
  customize: (deployed) => {
    const uploads = functionOf(deployed, 'routes/upload');
    uploads.addEnvironment('IMPORT_UPLOAD_LINK_SECONDS', String(LINK_SECONDS));
    uploads.addEnvironment('IMPORT_UPLOAD_ARRIVAL_GRACE_SECONDS', String(ARRIVAL_GRACE_SECONDS));
  },
});
let acme: TestAccount;

interface Upload {
  txid: string;
  upload_url: string;
  upload_expiration_timestamp: number;
}

const startUpload = async (dcId = 'dc-1', key = acme.key): Promise<Upload> =>
  expectSuccess(
    await fx.request('POST', `/dcs/${dcId}/invoiced-routes/uploads`, { key }),
    routes.createImportUpload,
    202,
  );

const put = (url: string, body: string) => fetch(url, { method: 'PUT', body });

beforeAll(async () => {
  acme = await fx.account('Acme', [{ dcId: 'dc-1' }]);
  await fx.account('Globex', [{ dcId: 'gx-1' }]);
});

describe('POST /dcs/{dc_id}/invoiced-routes/uploads', () => {
  it('answers 202 with a txid and a presigned PUT link that expires when it says', async () => {
    const before = Date.now();
    const upload = await startUpload();
    const url = new URL(upload.upload_url);
    expect(url.searchParams.get('X-Amz-Expires')).toBe(String(LINK_SECONDS));
    const signedAt = Date.parse(
      (url.searchParams.get('X-Amz-Date') ?? '').replace(
        /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/,
        '$1-$2-$3T$4:$5:$6Z',
      ),
    );
    expect(upload.upload_expiration_timestamp).toBe(signedAt + LINK_SECONDS * 1000);
    expect(upload.upload_expiration_timestamp).toBeGreaterThan(before);
    // Only the key is signed: the client may send any content type, and no checksum of a body yet unknown.
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect([...url.searchParams.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);
    expect(url.pathname).toMatch(new RegExp(`/uploads/${acme.accountId}/${upload.txid}\\.json$`));
    const pending = await fx.request('GET', `/dcs/dc-1/routes/import-status/${upload.txid}`, {
      key: acme.key,
    });
    expect(expectSuccess(pending, routes.getImportStatus, 202)).toEqual({
      txid: upload.txid,
      status: 'PENDING',
    });
  });

  it('refuses a DC of another account (1002)', async () => {
    const response = await fx.request('POST', '/dcs/gx-1/invoiced-routes/uploads', { key: acme.key });
    expect(expectError(response, 403, ERROR_CODES.DC_FORBIDDEN.code)).toMatch(/gx-1/);
  });

  it('imports a route larger than a request body may be, PUT to the link', async () => {
    const route = exampleRoute('upload-big', { waypoints: 250, itemsPerInvoice: 1 });
    // 50 attributes of 500 characters on each invoice: about 8 MB, far over what API Gateway and Lambda take.
    for (const waypoint of route.waypoints) {
      for (const invoice of waypoint.invoices) {
        invoice.invoice_name_attributes = Array.from({ length: 50 }, (_, a) => ({
          key: `attribute-${a}`,
          value: `${a}`.padEnd(500, 'x'),
        }));
      }
    }
    const body = JSON.stringify({ route });
    expect(Buffer.byteLength(body)).toBeGreaterThan(6 * 1024 * 1024);
    expect(Buffer.byteLength(body)).toBeGreaterThan(MAX_BODY_BYTES);

    const upload = await startUpload();
    const stored = await put(upload.upload_url, body);
    expect(stored.status, await stored.text()).toBe(200);
    const finished = await waitForImport(fx.api.url, acme.key, 'dc-1', upload.txid, 120_000);
    expect(expectSuccess(finished, routes.getImportStatus)).toEqual({
      txid: upload.txid,
      status: 'SUCCEEDED',
      route_id: 'upload-big',
    });
    const read = expectSuccess(
      await fx.request('GET', '/dcs/dc-1/routes/upload-big', { key: acme.key }),
      routes.getRoute,
    ) as { route: { waypoint_ids: string[] } };
    expect(read.route.waypoint_ids).toEqual(route.waypoints.map((waypoint) => waypoint.id));
  }, 150_000);

  it.each([
    [
      'a field the schema refuses (1006)',
      JSON.stringify({ route: { ...exampleRoute('upload-bad'), start_time: 'soon' } }),
    ],
    ['malformed JSON (1005)', '{"route": {'],
    [
      'a route id that is a fixed segment where route ids go in paths (1006)',
      JSON.stringify({ route: exampleRoute('import-status') }),
    ],
    [
      'a waypoint id given twice (3006)',
      JSON.stringify({
        route: (() => {
          const route = exampleRoute('upload-twice', { waypoints: 2 });
          (route.waypoints[1] as { id: string }).id = route.waypoints[0]?.id as string;
          return route;
        })(),
      }),
    ],
  ])('reports %s through import-status with the code and message the POST gives', async (_case, body) => {
    const posted = await fx.request('POST', '/dcs/dc-1/invoiced-routes', { key: acme.key, body });
    expect(posted.status, posted.text).toBe(400);
    const { code, message } = posted.body.data as { code: number; message: string };

    const upload = await startUpload();
    expect((await put(upload.upload_url, body)).status).toBe(200);
    const failed = await waitForImport(fx.api.url, acme.key, 'dc-1', upload.txid);
    expect(expectError(failed, 400, code)).toBe(`import ${upload.txid} failed: ${message}`);
  });

  it('fails an empty (0-byte) upload with 1006, as S3 stores and announces an empty object', async () => {
    const upload = await startUpload();
    // No body and no Content-Type: S3 stores an empty object all the same.
    const stored = await fetch(upload.upload_url, { method: 'PUT', body: new Uint8Array(0) });
    expect(stored.status, await stored.text()).toBe(200);
    const failed = await waitForImport(fx.api.url, acme.key, 'dc-1', upload.txid);
    expect(expectError(failed, 400, ERROR_CODES.VALIDATION_FAILED.code)).toBe(
      `import ${upload.txid} failed: request body: the upload is empty (0 bytes); PUT the {"route": ...} JSON to the link`,
    );
  });

  it('fails an upload that never arrives with 3015 after its link expired, and ignores an object after that', async () => {
    const upload = await startUpload();
    const deadline = upload.upload_expiration_timestamp + ARRIVAL_GRACE_SECONDS * 1000;
    const statusPath = `/dcs/dc-1/routes/import-status/${upload.txid}`;
    await new Promise((resolve) =>
      setTimeout(resolve, upload.upload_expiration_timestamp + 500 - Date.now()),
    );
    // The link is dead: S3 refuses the PUT.
    const late = await put(upload.upload_url, JSON.stringify({ route: exampleRoute('upload-late') }));
    expect(late.status).toBe(403);
    expect(await late.text()).toMatch(/AccessDenied|expired/i);
    expect((await fx.request('GET', statusPath, { key: acme.key })).status).toBe(202);

    // The import's deadline check finds no object at the arrival deadline and ends the import.
    const expired = await waitForImport(fx.api.url, acme.key, 'dc-1', upload.txid, 60_000);
    expect(Date.now()).toBeGreaterThanOrEqual(deadline);
    expect(expectError(expired, 400, ERROR_CODES.UPLOAD_EXPIRED.code)).toMatch(/upload link expired/);

    // An object that still arrives (here written by the operator) starts nothing: the answer stays.
    await putUploadObject(fx.api, upload.upload_url, exampleRoute('upload-late'));
    await expect
      .poll(() => fx.api.logs.some(({ line }) => line.includes('uploaded object ignored')), {
        timeout: 20_000,
      })
      .toBe(true);
    // The same answer: status and body (the headers carry a new request id and date).
    const again = await fx.request('GET', statusPath, { key: acme.key });
    expect({ status: again.status, body: again.body }).toEqual({
      status: expired.status,
      body: expired.body,
    });
    const route = await fx.request('GET', '/dcs/dc-1/routes/upload-late', { key: acme.key });
    expect(route.status).toBe(404);
  }, 120_000);
});

describe('the import worker', () => {
  it("deletes S3's test event", async () => {
    const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
    const attributes = async (queueUrl: string) => {
      const names: QueueAttributeName[] = [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
      ];
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: names }),
      );
      return names.map((name) => Number(Attributes[name] ?? 0));
    };
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: fx.api.resources.queueUrls.imports,
        MessageBody: JSON.stringify({
          Service: 'Amazon S3',
          Event: 's3:TestEvent',
          Time: new Date().toISOString(),
          Bucket: fx.api.resources.bucketName,
          RequestId: 'TEST',
          HostId: 'TEST',
        }),
      }),
    );
    await expect
      .poll(() => fx.api.logs.some(({ line }) => line.includes('S3 test event ignored')), {
        timeout: 20_000,
      })
      .toBe(true);
    // Deleted rather than left to come back after the visibility timeout and end in the DLQ.
    await expect
      .poll(() => attributes(fx.api.resources.queueUrls.imports), { timeout: 10_000 })
      .toEqual([0, 0]);
    expect(await attributes(fx.api.resources.dlqUrls.imports)).toEqual([0, 0]);
    sqs.destroy();
  });
});
