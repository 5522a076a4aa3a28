/**
 * `npm start`: the whole service on this machine, no AWS account needed.
 * Env: PORT (default 3000; 0 = any free port), LOCAL_STATE_DIR (default .local), LOCAL_DEMO_API_KEY.
 * Flag: --in-memory (DynamoDB data is not kept between runs).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { consumers } from '../functions/consumers';
import { endpoints } from '../functions/endpoints/index';
import { startApiServer } from '../local/api-server';
import { startQueuePollers } from '../local/queue-pollers';
import { startLocalStack } from '../local/stack';
import { startStreamPoller } from '../local/stream-poller';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const inMemory = process.argv.includes('--in-memory');
const port = Number(process.env.PORT ?? 3000);
const stateDir = resolve(process.env.LOCAL_STATE_DIR ?? '.local');
mkdirSync(stateDir, { recursive: true });
const stackFile = join(stateDir, 'stack.json');

const stack = await startLocalStack({
  dataDir: inMemory ? undefined : join(stateDir, 'dynamodb'),
  namePrefix: 'delivery-routes',
});
// Imported only now: the data layer reads TABLE_NAME and the endpoints when it loads.
const { seedDemoAccount } = await import('../local/seed');
const demo = await seedDemoAccount(stateDir, process.env.LOCAL_DEMO_API_KEY);
const api = await startApiServer({ endpoints, port, accessLog: true });
const pollers = startQueuePollers({
  consumers,
  awsEndpoint: stack.endpoints.aws,
  queueUrls: stack.resources.queueUrls,
});
// Does the EventBridge Pipe's job: event items from the table stream to the events queue.
const streamPoller = startStreamPoller({
  dynamodbEndpoint: stack.endpoints.dynamodb,
  awsEndpoint: stack.endpoints.aws,
  tableName: stack.resources.tableName,
  eventQueueUrl: stack.resources.queueUrls.events,
});
await streamPoller.ready;

writeFileSync(
  stackFile,
  JSON.stringify(
    {
      api_url: api.url,
      region: stack.environment.AWS_REGION,
      dynamodb_endpoint: stack.endpoints.dynamodb,
      sqs_endpoint: stack.endpoints.aws,
      s3_endpoint: stack.endpoints.aws,
      table_name: stack.resources.tableName,
      bucket_name: stack.resources.bucketName,
      queue_urls: stack.resources.queueUrls,
      dlq_urls: stack.resources.dlqUrls,
      demo: {
        account_id: demo.accountId,
        dc_id: demo.dcId,
        driver_id: demo.driverId,
        route_id: demo.routeId,
      },
    },
    null,
    2,
  ),
);

console.log(`Route service listening on ${api.url}`);
console.log(
  `Demo account ${demo.accountId}: DC ${demo.dcId}, driver ${demo.driverId}, route ${demo.routeId}`,
);
console.log(`Demo API key: ${demo.apiKey}`);
console.log(`Try: curl -H "Authorization: Bearer ${demo.apiKey}" ${api.url}/dcs/${demo.dcId}/drivers`);
console.log(`Demo driver login token: ${demo.driverToken}`);
console.log(`Try: curl -H "Authorization: Bearer ${demo.driverToken}" ${api.url}/driver/routes`);
console.log(
  `Stack endpoints written to ${stackFile}${inMemory ? ' (in-memory data)' : ''}; Ctrl-C stops everything.`,
);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  rmSync(stackFile, { force: true });
  await api.close();
  await pollers.stop();
  await streamPoller.stop();
  await stack.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
