import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { allChannels, type ChannelName } from '../../functions/models/channels';
import { configure } from '../../functions/shared/config';
import { sliceOf } from '../../lib/slices';
import { type SynthesizeOptions, synthesizeApp } from '../../local/cloud/synth';
import { type LocalCloud, type PartitionMode, startLocalCloud } from '../../local/cloud-runtime';
import type { InvokeResult } from '../../local/lambda/runtime';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/services';

export interface TestApi {
  url: string;
  tableName: string;
  resources: {
    tableName: string;
    bucketName: string;
    /** By channel name (functions/models/channels.ts). */
    queueUrls: Record<ChannelName, string>;
    dlqUrls: Record<ChannelName, string>;
  };
  /** The whole local deployment (functions, proxy, runtime). */
  cloud: LocalCloud;
  /** Every line the functions wrote, in order, with the function that wrote it. */
  logs: { functionName: string; stream: string; line: string }[];
  /** Invokes the function of a row (a consumer or endpoint, e.g. `importRoutes`) as Lambda would. */
  invoke(row: { module: string }, event: unknown): Promise<InvokeResult>;
  /** The deployed name of a row's function. */
  functionName(row: { module: string }): string;
  close(): Promise<void>;
}

export interface TestApiOptions {
  /** Run the SQS event source mappings (default true); without them queued work waits for the test. */
  pollers?: boolean;
  /**
   * Batches in flight per event source mapping at most, below its maximum concurrency (default 2: test files
   * share two cores).
   */
  pollerConcurrency?: number;
  /**
   * Run the pipe from the table stream to the events queue (default false: it costs every file CPU, and
   * without it the table is made without its stream, which would cost each write more).
   */
  streams?: boolean;
  /**
   * Changes to the CDK app before it is synthesized for this file (a timeout, an environment variable, a
   * grant): the local deployment follows them as `cdk deploy` would. Costs this file a synth (~3 s).
   */
  customize?: SynthesizeOptions['customize'];
  /** CDK context for this file's synth, as `cdk deploy -c` gives it (a limit); costs a synth as customize does. */
  context?: SynthesizeOptions['context'];
  /** Functions trace as deployed (the X-Ray SDK loads); off by default, as there is no X-Ray daemon here. */
  tracing?: boolean;
  /** Functions print their EMF metric lines; off by default, as there is no CloudWatch here. */
  metrics?: boolean;
  /** Sessions functions assume through STS (link signers) last at most this long (default 3600 s). */
  maxChainedSessionSeconds?: number;
  /**
   * The SSRF guard on, as deployed (`WEBHOOK_ALLOW_PRIVATE_TARGETS=false npm start`): webhooks cannot target
   * 127.0.0.1. Off by default, as test receivers listen there.
   */
  ssrfGuard?: boolean;
  /**
   * The DynamoDB partition model (default off): `count` counts capacity per partition key (read it from
   * `cloud.proxy.partitions`), `enforce` also throttles a key past AWS's per-partition limits (1,000 write and
   * 3,000 read units a second) with DynamoDB's own errors.
   */
  partitions?: PartitionMode;
}

/**
 * The service deployed for one test file: its own table, queues and bucket (named after the file) on its
 * worker's DynamoDB Local (workerDynamoDb) and the run's fauxqs, behind its own signing proxy, with every
 * function run from the bundles built once for the run. The test process acts as the local operator: the service's configuration becomes the
 * operator's environment (`configure`), so code of functions/, imported before or after, reads and writes this
 * file's resources.
 */
export async function startTestApi(name: string, options: TestApiOptions = {}): Promise<TestApi> {
  const scratch =
    options.customize || options.context ? mkdtempSync(join(tmpdir(), `drs-${name}-`)) : undefined;
  const assemblyDir = scratch
    ? await synthesizeApp({ outdir: scratch, customize: options.customize, context: options.context })
    : inject('assemblyDir');
  const logs: TestApi['logs'] = [];
  const dynamodb = workerDynamoDb();
  const cloud = await startLocalCloud({
    assemblyDir,
    emulators: { dynamodb, aws: inject('awsEndpoint') },
    namePrefix: `t-${name}-${randomBytes(3).toString('hex')}`,
    bundles: new Map(inject('bundles')),
    eventSources: options.pollers === false ? false : { concurrencyCap: options.pollerConcurrency ?? 2 },
    // Test files share two cores: a burst of requests reuses a few warm environments instead of starting one
    // each (every invocation still runs alone in its environment).
    maxInstancesPerFunction: 3,
    maxChainedSessionSeconds: options.maxChainedSessionSeconds,
    pipes: options.streams === true,
    allowPrivateWebhookTargets: options.ssrfGuard !== true,
    partitions: options.partitions,
    extraFunctionEnvironment: {
      ...(options.tracing ? { POWERTOOLS_TRACE_ENABLED: 'true' } : {}),
      ...(options.metrics ? { POWERTOOLS_METRICS_DISABLED: 'false' } : {}),
    },
    onLog: ({ functionName, stream, line }) => {
      logs.push({ functionName, stream, line });
      // TEST_FUNCTION_LOGS=1 shows every function's output as it comes, for debugging a test.
      if (process.env.TEST_FUNCTION_LOGS) process.stderr.write(`${functionName} | ${line}\n`);
    },
  });
  configure(cloud.operatorEnvironment);
  // The AWS SDK's own variables (endpoints, region, credentials) also go to process.env, for the clients tests
  // make themselves (a bare `new SQSClient({})`), as an operator's shell would have them.
  Object.assign(
    process.env,
    Object.fromEntries(Object.entries(cloud.operatorEnvironment).filter(([name]) => name.startsWith('AWS_'))),
  );
  const queues = (deadLetter: boolean) =>
    Object.fromEntries(
      allChannels.map((channel) => [channel.name, cloud.queueUrl(channel, deadLetter)]),
    ) as Record<ChannelName, string>;
  const tableName = cloud.operatorEnvironment.TABLE_NAME as string;
  const functionName = (row: { module: string }) => cloud.functionOf(sliceOf(row.module).repoEntry).name;
  return {
    url: cloud.api.url,
    tableName,
    resources: {
      tableName,
      bucketName: cloud.operatorEnvironment.BUCKET_NAME as string,
      queueUrls: queues(false),
      dlqUrls: queues(true),
    },
    cloud,
    logs,
    invoke: (row, event) => cloud.invoke(functionName(row), event),
    functionName,
    close: async () => {
      await cloud.stop();
      await dropTable(dynamodb, tableName);
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * The DynamoDB Local of this file's worker (started by the global setup): the files a worker runs one after
 * another share it, each with tables of its own names, and two files running at once never share one. A
 * shared database costs its writes nothing: DynamoDB Local's stream records are indexed by stream
 * (local/services.ts), so a file's table writes as fast after other files' records as on a fresh database
 * (test/e2e/dynamodb-local.test.ts), and no file pays a JVM's start.
 */
export function workerDynamoDb(): string {
  const endpoints = inject('dynamodbEndpoints');
  const worker = Number(process.env.VITEST_POOL_ID ?? 1);
  return endpoints[(worker - 1) % endpoints.length] as string;
}

/** Deletes a file's table from its worker's DynamoDB Local, as the file ends: its items go with it. */
export async function dropTable(endpoint: string, table: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  try {
    await client.send(new DeleteTableCommand({ TableName: table }));
  } catch (error) {
    // A test that deleted its table itself (internal-error, observability) leaves nothing to delete.
    if (!(error instanceof Error && error.name === 'ResourceNotFoundException')) throw error;
  } finally {
    client.destroy();
  }
}
