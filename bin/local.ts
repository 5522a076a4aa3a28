/**
 * `npm start`: the whole service on this machine, no AWS account needed, run as deployed: the CDK app is
 * synthesized (without bundling) and every function, queue, pipe and API method comes from its templates. The
 * templates and the functions' bundles are kept between runs and reused while nothing they are made of changed.
 * Env: PORT (default 3000; 0 = any free port), LOCAL_STATE_DIR (default .local), LOCAL_CACHE_DIR (the synthesized
 * app and the functions' bundles, kept between runs; default drs-local-cache under the system's temp directory),
 * LOCAL_DEMO_API_KEY,
 * LOCAL_PLATFORM_LOG (all: every Lambda START/END/REPORT line), LOCAL_CONSUMER_CONCURRENCY (default twice the
 * cores), WEBHOOK_ALLOW_PRIVATE_TARGETS (default true; false turns the SSRF guard on, as deployed),
 * LOCAL_DYNAMODB_PARTITIONS (off, count or enforce: the DynamoDB partition model; default off).
 * Flags: --in-memory (nothing is kept between runs: table, queues, objects); -c key=value (CDK context, as `cdk deploy -c`).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startDynamoDbLocal } from '../local/services';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const started = performance.now();
const { values: flags } = parseArgs({
  options: {
    'in-memory': { type: 'boolean', default: false },
    context: { type: 'string', short: 'c', multiple: true, default: [] },
  },
});
const inMemory = flags['in-memory'];
const port = Number(process.env.PORT ?? 3000);
// A port that cannot be served ends the start at once, in one line, before anything is started.
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number (0..65535; 0 takes any free port), not '${process.env.PORT}'`);
  process.exit(1);
}
if (!(await portIsFree(port))) {
  console.error(portTaken(port));
  process.exit(1);
}
const stateDir = resolve(process.env.LOCAL_STATE_DIR ?? '.local');
mkdirSync(stateDir, { recursive: true });
const stackFile = join(stateDir, 'stack.json');

// DynamoDB Local's JVM, the slowest to answer, starts first (in its own process) and comes up while the rest of
// the runtime loads and the app is synthesized.
const dynamodbStarting = startDynamoDbLocal({ dataDir: inMemory ? undefined : join(stateDir, 'dynamodb') });
dynamodbStarting.catch(() => {}); // awaited below
const [
  { allChannels },
  { configure },
  { DEFAULT_LOCAL_CACHE_DIR },
  { readDeployment },
  { cachedSynthesis },
  { localAllowsPrivateWebhookTargets, localPartitionMode, startLocalCloud },
  { cachedBundles },
  { progressLine },
  { seedDemoAccount },
  { startLocalAws },
  { localConsumerConcurrency },
] = await Promise.all([
  import('../functions/models/channels'),
  import('../functions/shared/config'),
  import('../local/build-cache'),
  import('../local/cloud/deployment'),
  import('../local/cloud/synth'),
  import('../local/cloud-runtime'),
  import('../local/lambda/bundles'),
  import('../local/progress'),
  import('../local/app/seed'),
  import('../local/services'),
  import('../local/event-sources/sqs'),
]);
let consumerConcurrency: number;
let allowPrivateWebhookTargets: boolean;
let partitions: ReturnType<typeof localPartitionMode>;
try {
  consumerConcurrency = localConsumerConcurrency(process.env);
  allowPrivateWebhookTargets = localAllowsPrivateWebhookTargets(process.env);
  partitions = localPartitionMode(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const cacheDir = resolve(process.env.LOCAL_CACHE_DIR || DEFAULT_LOCAL_CACHE_DIR);
const NAME_PREFIX = 'delivery-routes';

const emulators = Promise.all([
  dynamodbStarting,
  startLocalAws({ dataDir: inMemory ? undefined : join(stateDir, 'fauxqs') }),
]);
const assemblyDir = await cachedSynthesis({
  cacheDir: join(cacheDir, 'synth'),
  context: cdkContext(flags.context),
  onSynthesize: () => console.log('synthesizing the CDK app'),
});
// The bundles build (a first start builds every one) while the emulators finish starting and the table,
// queues and bucket are created.
const bundles = cachedBundles(
  readDeployment(assemblyDir, { namePrefix: NAME_PREFIX, awsEndpoint: 'http://127.0.0.1' }).functions,
  { cacheDir: join(cacheDir, 'bundles'), onProgress: bundleProgress(progressLine) },
);
bundles.catch(() => {}); // its failure is startLocalCloud's
const [dynamodb, aws] = await emulators;
// Taken between the check above and now: the same one line, after stopping what started.
const cloud = await startLocalCloud({
  assemblyDir,
  emulators: { dynamodb: dynamodb.endpoint, aws: aws.endpoint },
  bundles,
  namePrefix: NAME_PREFIX,
  port,
  accessLog: true,
  eventSources: { concurrencyCap: consumerConcurrency },
  allowPrivateWebhookTargets,
  partitions,
  onLog: printFunctionLog,
  stateDir: inMemory ? undefined : stateDir,
}).catch(async (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EADDRINUSE') throw error;
  console.error(portTaken(port));
  await Promise.all([dynamodb.stop(), aws.stop()]);
  process.exit(1);
});
// This process is the local operator: the demo account is made with the service's own code.
configure(cloud.operatorEnvironment);
const demo = await seedDemoAccount(stateDir, process.env.LOCAL_DEMO_API_KEY);

writeFileSync(
  stackFile,
  JSON.stringify(
    {
      api_url: cloud.api.url,
      region: cloud.deployment.region,
      aws_endpoint: cloud.proxy.endpoint,
      dynamodb_endpoint: cloud.proxy.endpoint,
      /** The accounts' usage plan (the API stack's UsagePlanId output): the admin CLI registers accounts in it. */
      usage_plan_id: cloud.operatorEnvironment.USAGE_PLAN_ID,
      /** DynamoDB Local and fauxqs themselves, past the local AWS endpoint's checks (the bench's baselines). */
      emulator_endpoints: { dynamodb: dynamodb.endpoint, aws: aws.endpoint },
      sqs_endpoint: cloud.proxy.endpoint,
      s3_endpoint: cloud.proxy.endpoint,
      table_name: cloud.operatorEnvironment.TABLE_NAME,
      bucket_name: cloud.operatorEnvironment.BUCKET_NAME,
      queue_urls: Object.fromEntries(allChannels.map((channel) => [channel.name, cloud.queueUrl(channel)])),
      dlq_urls: Object.fromEntries(
        allChannels.map((channel) => [channel.name, cloud.queueUrl(channel, true)]),
      ),
      /** What a local operator's process needs to use the table, bucket and queues with the service's code. */
      operator_environment: cloud.operatorEnvironment,
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

console.log(
  `Route service listening on ${cloud.api.url} (ready in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
);
console.log(
  `Demo account ${demo.accountId}: DC ${demo.dcId}, driver ${demo.driverId}, route ${demo.routeId}`,
);
console.log(`Demo API key: ${demo.apiKey}`);
console.log(`Try: curl -H "Authorization: Bearer ${demo.apiKey}" ${cloud.api.url}/dcs/${demo.dcId}/drivers`);
console.log(`Demo driver login token: ${demo.driverToken}`);
console.log(`Try: curl -H "Authorization: Bearer ${demo.driverToken}" ${cloud.api.url}/driver/routes`);
console.log(
  `Stack endpoints written to ${stackFile}${inMemory ? ' (in-memory data)' : ''}; Ctrl-C stops everything.`,
);

// What AWS does as days pass and the emulators do not (S3's lifecycle rules, DynamoDB's TTL): now and hourly.
const expireDue = () =>
  cloud
    .expire(Date.now())
    .catch((error: unknown) => console.error('expiring objects and items failed', error));
void expireDue();
const expiry = setInterval(expireDue, 3_600_000);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  clearInterval(expiry);
  rmSync(stackFile, { force: true });
  await cloud.stop();
  await Promise.all([dynamodb.stop(), aws.stop()]);
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

/**
 * A function's log line on stdout, after the function's name (less the stack prefix and hash): what the
 * function writes, and of Lambda's own lines only the REPORT of cold starts and of invocations that ended
 * badly (LOCAL_PLATFORM_LOG=all: every START, END and REPORT).
 */
function printFunctionLog(record: { functionName: string; stream: string; line: string }): void {
  const everyPlatformLine = process.env.LOCAL_PLATFORM_LOG === 'all';
  if (
    record.stream === 'platform' &&
    !everyPlatformLine &&
    !/^REPORT .*(Init Duration|Status: )/.test(record.line)
  )
    return;
  const label = record.functionName.replace(/^delivery-routes-/, '').replace(/[0-9A-F]{8}$/, '');
  console.log(`${label} | ${record.line}`);
}

/** `-c key=value` pairs, as the CDK CLI takes them. */
function cdkContext(pairs: string[]): Record<string, string> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`-c takes key=value, not '${pair}'`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}

/** `building Lambda bundles: 12/59` on stdout while bundles are built (none when every one is cached). */
function bundleProgress(line: typeof import('../local/progress').progressLine) {
  let report: ((built: number) => void) | undefined;
  return (built: number, total: number) => {
    report ??= line('building Lambda bundles', total, process.stdout);
    report(built);
  };
}

/** Whether this process could listen on 127.0.0.1:`port` (always, for 0: any free port). */
function portIsFree(port: number): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

function portTaken(port: number): string {
  return `PORT ${port} is in use (another npm start?): stop what holds it, or start with PORT set to a free port (PORT=0 takes any)`;
}
