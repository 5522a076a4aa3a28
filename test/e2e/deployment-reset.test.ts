import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import * as drivers from '../../functions/api/drivers/index';
import { createTestAccount } from '../support/accounts';
import { call, expectSuccess } from '../support/http';
import { startTestApi, type TestApi } from '../support/local-api';
import { exampleRoute, importRoute } from '../support/routes';
import { scanItems } from '../support/table-scans';
import { messagesHeld } from '../support/webhook-receiver';

/**
 * Test files of a worker take turns at one deployment (test/support/local-api.ts): the local runtime's reset
 * leaves it as empty as a deployment of the file's own would be, with the functions' environments still warm.
 */

async function createDriver(api: TestApi, key: string, driverId: string) {
  const created = await call(api.url, 'POST', '/dcs/dc-1/drivers', {
    key,
    body: { driver_id: driverId, driver_name: driverId },
  });
  expectSuccess(created, drivers.createDriver);
}

const allQueues = (api: TestApi) => [
  ...Object.values(api.resources.queueUrls),
  ...Object.values(api.resources.dlqUrls),
];

describe('a deployment the next test file takes over', () => {
  it('is empty, and its functions warm and its queues consumed again', async () => {
    const first = await startTestApi('deployment-reset');
    const { url, resources } = first;
    const createFunction = first.functionName(drivers.createDriver);
    try {
      const acme = await createTestAccount('Acme', [{ dcId: 'dc-1' }]);
      await createDriver(first, acme.key, 'left-behind');
      const s3 = new S3Client({ forcePathStyle: true });
      const sqs = new SQSClient({});
      try {
        await s3.send(
          new PutObjectCommand({ Bucket: resources.bucketName, Key: 'left/behind.csv', Body: 'x' }),
        );
        await sqs.send(new SendMessageCommand({ QueueUrl: resources.dlqUrls.imports, MessageBody: '{}' }));
        await sqs.send(
          new SendMessageCommand({
            QueueUrl: resources.queueUrls.imports,
            MessageBody: '{}',
            DelaySeconds: 900,
          }),
        );
      } finally {
        s3.destroy();
        sqs.destroy();
      }
      expect(await messagesHeld(resources.dlqUrls.imports)).toBe(1);
    } finally {
      await first.close();
    }
    const warm = first.cloud.lambda.stats(createFunction);
    expect(warm.instances).toBe(1);

    const next = await startTestApi('deployment-reset');
    try {
      // The same deployment (these options, this worker), as the next file finds it.
      expect(next.url).toBe(url);
      expect(next.logs).toEqual([]);
      expect(await scanItems()).toEqual([]);
      expect(await Promise.all(allQueues(next).map(messagesHeld))).toEqual(allQueues(next).map(() => 0));
      const s3 = new S3Client({ forcePathStyle: true });
      try {
        const listed = await s3.send(new ListObjectsV2Command({ Bucket: next.resources.bucketName }));
        expect(listed.KeyCount).toBe(0);
      } finally {
        s3.destroy();
      }

      const globex = await createTestAccount('Globex', [{ dcId: 'dc-1' }]);
      await createDriver(next, globex.key, 'first-of-the-next');
      expect(next.cloud.lambda.stats(createFunction)).toMatchObject({
        coldStarts: warm.coldStarts,
        invocations: warm.invocations + 1,
      });
      // The import worker's event source mapping polls again.
      await importRoute(next.url, globex.key, 'dc-1', exampleRoute('after-reset', { waypoints: 1 }));
    } finally {
      await next.close();
    }
  });

  it('is not one with pipes: a table made anew has a new stream, which they would not read', async () => {
    const api = await startTestApi('deployment-reset-pipes', { streams: true });
    try {
      await expect(api.cloud.reset()).rejects.toThrow('a deployment with pipes cannot be reset');
    } finally {
      await api.close();
    }
  });
});
