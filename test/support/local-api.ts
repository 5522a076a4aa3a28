import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { consumers } from '../../functions/consumers';
import { endpoints } from '../../functions/endpoints/index';
import { type ApiServer, startApiServer } from '../../local/api-server';
import { localHandlerEnvironment } from '../../local/environment';
import { startQueuePollers } from '../../local/queue-pollers';
import type { LocalResources } from '../../local/resources';
import { createLocalResources } from '../../local/stack';
import { startStreamPoller } from '../../local/stream-poller';

export interface TestApi extends ApiServer {
  tableName: string;
  resources: LocalResources;
}

/**
 * A local API for one test file: its own table, queues and bucket (named after the file) on the shared
 * DynamoDB Local and fauxqs, and the same HTTP adapter `npm start` uses. Call before importing anything
 * from functions/data: the handlers read their environment when they load.
 */
export async function startTestApi(
  name: string,
  options: { pollers?: boolean; streams?: boolean } = {},
): Promise<TestApi> {
  const endpointsUsed = { dynamodb: inject('dynamodbEndpoint'), aws: inject('awsEndpoint') };
  const prefix = `t-${name}-${randomBytes(3).toString('hex')}`;
  const resources = await createLocalResources(endpointsUsed, prefix);
  Object.assign(process.env, localHandlerEnvironment(endpointsUsed, resources));
  const api = await startApiServer({ endpoints });
  // Without pollers, queued work waits until a test drives the consumer itself.
  const pollers = startQueuePollers({
    consumers: options.pollers === false ? [] : consumers,
    awsEndpoint: endpointsUsed.aws,
    queueUrls: resources.queueUrls,
    // Every test file runs its own pollers on one machine: one batch at a time per consumer.
    maxPollersPerConsumer: 1,
  });
  // The pipe's stand-in: event items written by this file's handlers reach this file's events queue. Only
  // files that follow events ask for it: a poller per file costs CPU every test file shares.
  const streams = !options.streams
    ? undefined
    : startStreamPoller({
        dynamodbEndpoint: endpointsUsed.dynamodb,
        awsEndpoint: endpointsUsed.aws,
        tableName: resources.tableName,
        eventQueueUrl: resources.queueUrls.events,
      });
  await streams?.ready;
  return {
    ...api,
    tableName: resources.tableName,
    resources,
    close: async () => {
      await api.close();
      await pollers.stop();
      await streams?.stop();
    },
  };
}
