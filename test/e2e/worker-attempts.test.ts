import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as channels from '../../functions/models/channels';
import { exportAnalytics } from '../../functions/workers/export-analytics/consumer';
import { createTestAccount } from '../support/accounts';
import { downloadBody, requestDownloadFrom } from '../support/analytics';
import { functionOf, revokeFromRole } from '../support/cdk';
import { call, expectError } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { receiveQueueMessages } from '../support/routes';

/**
 * Workers with a job record of their own count their runs on it: SQS's ApproximateReceiveCount also counts
 * receives Lambda spent while the function was throttled, so it cannot tell a worker its last attempt. Here
 * the export worker cannot read the table (its dynamodb:Query grant is removed), and the test hands it the
 * queued message itself, with the high receive counts a throttled function would see.
 */

let api: TestApi;
let acme: Awaited<ReturnType<typeof createTestAccount>>;

beforeAll(async () => {
  api = await startTestApi('worker-attempts', {
    pollers: false,
    customize: (routes) => revokeFromRole(functionOf(routes, 'workers/export-analytics'), 'dynamodb:Query'),
  });
  acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }]);
}, 90_000);

afterAll(async () => {
  await api?.close();
});

const files = (txid: string) =>
  call(api.url, 'GET', `/analytics/download-requests/${txid}/files`, { key: acme.key });

/** Runs the worker on the message as Lambda would; 'retry' when SQS would hand the message out again. */
async function exportWorker(record: SQSRecord, receiveCount: number): Promise<'retry' | 'done'> {
  const attributes = { ...record.attributes, ApproximateReceiveCount: String(receiveCount) };
  const result = await api.invoke(exportAnalytics, { Records: [{ ...record, attributes }] });
  // A batch whose every record failed ends in a function error (Powertools' FullBatchFailureError).
  if (result.kind === 'functionError' && result.errorType === 'FullBatchFailureError') return 'retry';
  if (result.kind !== 'success') throw new Error(`the export worker failed: ${JSON.stringify(result)}`);
  const { batchItemFailures } = result.payload as { batchItemFailures: unknown[] };
  return batchItemFailures.length > 0 ? 'retry' : 'done';
}

describe('the analytics export worker', () => {
  it('retries a failing export on its own count of runs, not on receives, and fails it on the last', async () => {
    const body = downloadBody({ dc_ids: ['dc-1'], from_date: '2026-01-01', to_date: '2026-01-02' });
    const txid = await requestDownloadFrom(api.url, acme.key, body);
    const [message] = await receiveQueueMessages(api, 'analytics', 1);
    const attempts = channels.analytics.workerAttempts;
    const { maxReceiveCount } = channels.analytics;
    expect(maxReceiveCount).toBeGreaterThan(attempts);

    // Every receive but this one was spent while throttled: the first run is still only a failure to retry.
    for (let run = 1; run < attempts; run++) {
      expect(await exportWorker(message as SQSRecord, maxReceiveCount)).toBe('retry');
      expect((await files(txid)).status).toBe(202);
    }
    // The last run ends the request instead of leaving it pending for the DLQ.
    expect(await exportWorker(message as SQSRecord, maxReceiveCount)).toBe('done');
    expectError(await files(txid), 400, 6000);
    // A late duplicate of the message finds it ended.
    expect(await exportWorker(message as SQSRecord, maxReceiveCount)).toBe('done');
    const denied = api.logs.filter(
      ({ line }) => line.includes('AccessDeniedException') && line.includes('dynamodb:Query'),
    );
    expect(denied.length).toBeGreaterThanOrEqual(attempts);
  });
});
