import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { allChannels, messageOutcomes } from '../functions/models/channels';
import type { Channel } from '../functions/shared/channel';
import { RESOURCE_ENV } from '../functions/shared/resources';
import { channelQueueIds } from '../lib/naming';
import { ApiKeyStore } from './api-gateway/api-keys';
import { type ApiGateway, startApiGateway } from './api-gateway/server';
import { serveOutbox } from './aws-proxy/outbox';
import { type AwsProxy, type Principal, startAwsProxy } from './aws-proxy/proxy';
import { KeptSessions } from './aws-proxy/sts-sessions';
import { readDeployment } from './cloud/deployment';
import { type Expired, expireAsOf } from './cloud/expiry';
import {
  type Deployment,
  type FunctionSpec,
  LOCAL_ACCOUNT_ID,
  LOCAL_REGION,
  type QueueSpec,
  type TableSpec,
} from './cloud/model';
import { InFlightJournal } from './event-sources/in-flight-journal';
import { type LocalPipe, startPipe } from './event-sources/pipes';
import { type Credentials, type SqsEventSources, startSqsEventSources } from './event-sources/sqs';
import { cachedBundles } from './lambda/bundles';
import { type InvokeResult, type LambdaRuntime, startLambdaRuntime } from './lambda/runtime';
import { LOCAL_CREDENTIALS } from './services';
import { writeStateFile } from './state-files';

export interface LocalCloudOptions {
  /** A synthesized cloud assembly (local/cloud/synth.ts). */
  assemblyDir: string;
  /** DynamoDB Local and fauxqs, already running. */
  emulators: { dynamodb: string; aws: string };
  /** Every physical name starts with it. */
  namePrefix: string;
  /**
   * Bundles of this assembly's functions (entry -> bundle dir), or their build under way (awaited once the
   * table, queues and bucket exist); built here when absent.
   */
  bundles?: Map<string, string> | Promise<Map<string, string>>;
  /** API Gateway's port (default: any free one). */
  port?: number;
  accessLog?: boolean;
  /** Run the SQS event source mappings (default true); a cap on their concurrency for crowded machines. */
  eventSources?: boolean | { concurrencyCap: number };
  /** Run the pipes (default true). Without them, and without `stateDir`, the tables are made without streams. */
  pipes?: boolean;
  /**
   * Keeps the runtime's own state between runs here (npm start, whose table, queues and objects are kept too):
   * the pipes' stream positions, the API keys and usage plan keys created at run time, the KMS master key
   * (without it a new one is made, and what the last run encrypted no longer decrypts), and the messages
   * handed to functions (so that what a killed run held is handed out again at once).
   */
  stateDir?: string;
  /** Where functions' log lines go (default: stdout, prefixed with the function). */
  onLog?: Parameters<typeof startLambdaRuntime>[0]['onLog'];
  /** Variables every function gets on top of its template's, besides the endpoints and credentials. */
  extraFunctionEnvironment?: Record<string, string>;
  /**
   * Webhooks may target 127.0.0.1 and other private addresses (default true: local receivers listen there);
   * false turns the SSRF guard on, as deployed (`WEBHOOK_ALLOW_PRIVATE_TARGETS`).
   */
  allowPrivateWebhookTargets?: boolean;
  /** Execution environments per function at most (default 16; more invocations at once wait). */
  maxInstancesPerFunction?: number;
  /** Sessions that functions assume (STS AssumeRole) last at most this long (default 3600 s, as on AWS). */
  maxChainedSessionSeconds?: number;
  /**
   * The DynamoDB partition model (default off): `count` counts the capacity every call consumes per partition
   * key, `enforce` also throttles a key past AWS's per-partition limits as DynamoDB does. Its counters:
   * `proxy.partitions`, or GET PARTITIONS_PATH on the proxy (local/aws-proxy/proxy.ts).
   */
  partitions?: PartitionMode;
}

export type PartitionMode = 'off' | 'count' | 'enforce';

export interface LocalCloud {
  deployment: Deployment;
  api: ApiGateway;
  proxy: AwsProxy;
  lambda: LambdaRuntime;
  /**
   * What the local operator's process needs to use the table, bucket and queues with the service's code, and
   * to register accounts' usage keys (USAGE_PLAN_ID, the API stack's usage plan).
   */
  operatorEnvironment: Record<string, string>;
  /** The function of a handler module (`routes/start`) or consumer entry, by its bundle entry. */
  functionOf(entry: string): FunctionSpec;
  /** A channel's queue (or its dead-letter queue) as deployed. */
  queue(channel: Channel, deadLetter?: boolean): QueueSpec;
  queueUrl(channel: Channel, deadLetter?: boolean): string;
  invoke(functionName: string, event: unknown): Promise<InvokeResult>;
  /** Applies S3's lifecycle expiry and DynamoDB's TTL as AWS will have by `at` (local/cloud/expiry.ts). */
  expire(at: number): Promise<Expired>;
  stop(): Promise<void>;
}

/**
 * The service as deployed, on this machine: the table, queues and bucket created as the templates declare them
 * (through the signing proxy, so every later call is checked against the caller's IAM policy), each function
 * run from its bundle in environments of its own with its own credentials, and API Gateway, the SQS event
 * source mappings and the pipe configured from the same templates.
 */
export async function startLocalCloud(options: LocalCloudOptions): Promise<LocalCloud> {
  const stops: (() => Promise<void>)[] = [];
  const allowPrivateWebhookTargets = options.allowPrivateWebhookTargets ?? true;
  const stop = async () => {
    for (const step of stops.reverse())
      await step().catch((error) => console.error('stopping failed', error));
  };
  try {
    const kept = options.stateDir === undefined ? undefined : keptStateFiles(options.stateDir);
    const apiKeys = new ApiKeyStore(kept?.apiKeys);
    const proxy = await startKeptAwsProxy(kept?.awsEndpointPort, {
      dynamodbEndpoint: options.emulators.dynamodb,
      awsEndpoint: options.emulators.aws,
      maxChainedSessionSeconds: options.maxChainedSessionSeconds,
      apiKeys,
      kmsMasterKey: kept ? keptMasterKey(kept.kmsMasterKey) : undefined,
      keptSessions: kept ? new KeptSessions(kept.stsSessions) : undefined,
      partitions:
        options.partitions === undefined || options.partitions === 'off'
          ? undefined
          : { enforce: options.partitions === 'enforce' },
    });
    stops.push(() => proxy.close());
    proxy.addPrincipal({
      ...LOCAL_CREDENTIALS,
      arn: `arn:aws:iam::${LOCAL_ACCOUNT_ID}:user/local-operator`,
      policies: 'admin',
    });
    const deploymentOptions = { namePrefix: options.namePrefix, awsEndpoint: proxy.endpoint };
    const declared = readDeployment(options.assemblyDir, deploymentOptions);
    // Without its pipes a deployment's table streams have no reader, and DynamoDB Local spends a fifth to a half
    // more CPU on each write to a table that keeps them (docs/local-runtime.md): a deployment that runs no pipes
    // and keeps nothing for a later run (a test file that does not look at events) makes its tables without.
    const streams = options.pipes !== false || options.stateDir !== undefined;
    const tableStreamArns = await createResources(declared, proxy.endpoint, streams);
    const deployment = readDeployment(options.assemblyDir, { ...deploymentOptions, tableStreamArns });
    proxy.configureBucketNotifications(deployment);
    proxy.outbox.outcomes.configure(deployment, queueOf(deployment, messageOutcomes, false));
    proxy.configureKeys(deployment.keys);

    const credentials = roleCredentials(deployment, proxy);
    proxy.restoreSessions();
    const credentialsOf = (functionName: string): Credentials => {
      const fn = deployment.functions.find((candidate) => candidate.name === functionName);
      const found = fn && credentials.get(fn.roleArn);
      if (!found) throw new Error(`no function ${functionName} in the deployment`);
      return found;
    };

    const bundles = await (options.bundles ?? cachedBundles(deployment.functions));
    // Known once the API listens, which is after the functions' runtime starts (the API invokes them).
    let api: ApiGateway | undefined;
    const lambda = startLambdaRuntime({
      functions: deployment.functions,
      bundles,
      credentialsFor: (fn) => credentialsOf(fn.name) as Required<Credentials>,
      localEnvironment: {
        ...localFunctionEnvironment(proxy.endpoint, allowPrivateWebhookTargets),
        ...options.extraFunctionEnvironment,
      },
      apiUrl: () => api?.url,
      onLog: options.onLog,
      maxInstancesPerFunction: options.maxInstancesPerFunction,
    });
    stops.push(() => lambda.stop());

    const pipes: LocalPipe[] = [];
    if (options.pipes !== false) {
      for (const pipe of deployment.pipes) {
        const started = startPipe({
          pipe,
          queues: deployment.queues,
          endpoint: proxy.endpoint,
          region: deployment.region,
          credentials: requireCredentials(credentials, pipe.roleArn),
          checkpointFile: kept?.pipeCheckpoints,
        });
        pipes.push(started);
        stops.push(() => started.stop());
      }
    }
    let eventSources: SqsEventSources | undefined;
    if (options.eventSources !== false) {
      eventSources = startSqsEventSources({
        mappings: deployment.eventSourceMappings,
        queues: deployment.queues,
        lambda,
        endpoint: proxy.endpoint,
        region: deployment.region,
        credentialsOf,
        concurrencyCap:
          typeof options.eventSources === 'object' ? options.eventSources.concurrencyCap : undefined,
        journal: kept ? new InFlightJournal(kept.inFlightMessages) : undefined,
      });
      stops.push(() => (eventSources as SqsEventSources).stop());
    }
    const restApi = deployment.restApis[0];
    if (!restApi) throw new Error('the deployment has no REST API');
    const gateway = await startApiGateway({
      api: restApi,
      lambda,
      accountId: deployment.accountId,
      region: deployment.region,
      port: options.port,
      accessLog: options.accessLog,
      apiKeys,
      localRoutes: (method, path, res, req) => serveOutbox(method, path, res, proxy.outbox, req),
    });
    api = gateway;
    stops.push(() => gateway.close());
    await Promise.all(pipes.map((pipe) => pipe.ready));

    const queueUrl = (channel: Channel, deadLetter = false) => queueOf(deployment, channel, deadLetter).url;
    return {
      deployment,
      api: gateway,
      proxy,
      lambda,
      operatorEnvironment: {
        ...operatorEnvironment(deployment, proxy.endpoint, allowPrivateWebhookTargets, queueUrl),
        ...(restApi.usagePlans[0] ? { USAGE_PLAN_ID: restApi.usagePlans[0].id } : {}),
      },
      functionOf: (entry) => {
        const fn = deployment.functions.find((candidate) => candidate.entry === entry);
        if (!fn) throw new Error(`no function is built from ${entry}`);
        return fn;
      },
      queue: (channel, deadLetter = false) => queueOf(deployment, channel, deadLetter),
      queueUrl,
      invoke: (functionName, event) => lambda.invoke(functionName, event),
      expire: (at) => expireAsOf(deployment, proxy.endpoint, at),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Variables the local runtime adds to every function's template environment: where AWS is (the signing proxy),
 * and the few settings this machine needs. Nothing else: a function sees what its template gives it.
 */
function localFunctionEnvironment(
  awsEndpoint: string,
  allowPrivateWebhookTargets: boolean,
): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_DYNAMODB: awsEndpoint,
    AWS_ENDPOINT_URL_SQS: awsEndpoint,
    AWS_ENDPOINT_URL_S3: awsEndpoint,
    AWS_ENDPOINT_URL_STS: awsEndpoint,
    AWS_ENDPOINT_URL_API_GATEWAY: awsEndpoint,
    AWS_ENDPOINT_URL_KMS: awsEndpoint,
    // Customer messages go to the local outbox (local/aws-proxy/outbox.ts).
    AWS_ENDPOINT_URL_SESV2: awsEndpoint,
    AWS_ENDPOINT_URL_PINPOINT_SMS_VOICE_V2: awsEndpoint,
    // The S3 emulator serves path-style URLs only.
    S3_FORCE_PATH_STYLE: 'true',
    // Local webhook receivers listen on 127.0.0.1, which the SSRF guard refuses: off unless asked for.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: String(allowPrivateWebhookTargets),
    // No X-Ray daemon here.
    POWERTOOLS_TRACE_ENABLED: 'false',
    // No CloudWatch to read EMF lines either; POWERTOOLS_METRICS_DISABLED=false npm start prints them.
    POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
    // This machine runs Node 20 (Lambda runs 22); the SDK's reminder about that is noise here.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/**
 * `npm start`'s WEBHOOK_ALLOW_PRIVATE_TARGETS: `true` (the default: webhooks may target receivers on
 * 127.0.0.1) or `false` (the SSRF guard on, as deployed).
 */
export function localAllowsPrivateWebhookTargets(env: Record<string, string | undefined>): boolean {
  const value = env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
  if (value === undefined || value === '' || value === 'true') return true;
  if (value === 'false') return false;
  throw new Error(`WEBHOOK_ALLOW_PRIVATE_TARGETS must be true or false, not '${value}'`);
}

/** LOCAL_DYNAMODB_PARTITIONS: the DynamoDB partition model of `npm start` (off unless `count` or `enforce`). */
export function localPartitionMode(env: Record<string, string | undefined>): PartitionMode {
  const value = env.LOCAL_DYNAMODB_PARTITIONS;
  if (value === undefined || value === '') return 'off';
  if (value === 'off' || value === 'count' || value === 'enforce') return value;
  throw new Error(`LOCAL_DYNAMODB_PARTITIONS must be off, count or enforce, not '${value}'`);
}

/** The operator's environment: the table, bucket and queue variables the functions' code reads, and AWS's. */
function operatorEnvironment(
  deployment: Deployment,
  awsEndpoint: string,
  allowPrivateWebhookTargets: boolean,
  queueUrl: (channel: Channel, deadLetter?: boolean) => string,
): Record<string, string> {
  const table = deployment.tables[0];
  const bucket = deployment.buckets[0];
  // The key the functions that seal or open webhook secrets are told of (CDK sets it on exactly those).
  const webhookSecretsKeyArn = deployment.functions
    .map((fn) => fn.environment[RESOURCE_ENV.webhookSecretsKeyArn])
    .find((arn) => arn !== undefined);
  const queues = allChannels.flatMap((channel) => [
    [channel.urlEnv, queueUrl(channel)],
    [channel.deadLetterUrlEnv, queueUrl(channel, true)],
  ]);
  return {
    ...localFunctionEnvironment(awsEndpoint, allowPrivateWebhookTargets),
    AWS_REGION: deployment.region,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    ...(table ? { [RESOURCE_ENV.table]: table.name } : {}),
    ...(bucket ? { [RESOURCE_ENV.bucket]: bucket.name } : {}),
    ...(webhookSecretsKeyArn ? { [RESOURCE_ENV.webhookSecretsKeyArn]: webhookSecretsKeyArn } : {}),
    ...Object.fromEntries(queues),
  };
}

/** The files of the runtime's own state in `dir`. */
function keptStateFiles(dir: string) {
  return {
    pipeCheckpoints: join(dir, 'pipe-checkpoints.json'),
    apiKeys: join(dir, 'api-keys.json'),
    kmsMasterKey: join(dir, 'kms-master-key'),
    stsSessions: join(dir, 'sts-sessions.json'),
    awsEndpointPort: join(dir, 'aws-endpoint-port'),
    inFlightMessages: join(dir, 'in-flight-messages.jsonl'),
  };
}

/**
 * The local AWS endpoint, on the port of the last run when `portFile` keeps one and it is free: presigned
 * links name the endpoint, so a link handed out before a restart still reaches it (with its session, kept in
 * sts-sessions.json). A port taken since gives way to any free one, kept for the next run.
 */
async function startKeptAwsProxy(
  portFile: string | undefined,
  options: Parameters<typeof startAwsProxy>[0],
): Promise<AwsProxy> {
  const keptPort = portFile && existsSync(portFile) ? Number(readFileSync(portFile, 'utf8').trim()) : 0;
  const proxy = await startAwsProxy({ ...options, port: keptPort }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE') throw error;
    return startAwsProxy({ ...options, port: 0 });
  });
  if (portFile) writeStateFile(portFile, new URL(proxy.endpoint).port);
  return proxy;
}

/** The master key kept in `file`, made (readable by this user only) when there is none yet. */
function keptMasterKey(file: string): Buffer {
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a KMS master key (32 bytes, base64)`);
    return key;
  }
  const key = randomBytes(32);
  writeStateFile(file, `${key.toString('base64')}\n`, 0o600);
  return key;
}

/**
 * A channel's queue by the construct id the stateful stack gives it, which its logical id is made of (a
 * top-level construct's id and CDK's 8-digit hash of its path).
 */
function queueOf(deployment: Deployment, channel: Channel, deadLetter: boolean): QueueSpec {
  const ids = channelQueueIds(channel.name);
  const id = deadLetter ? ids.deadLetterQueue : ids.queue;
  const queue = deployment.queues.find(
    (candidate) =>
      /^[0-9A-F]{8}$/.test(candidate.logicalId.slice(id.length)) && candidate.logicalId.startsWith(id),
  );
  if (!queue) throw new Error(`the deployment has no ${id}`);
  return queue;
}

/**
 * Temporary credentials per role a service assumes, as Lambda and Pipes get from STS: a key id derived from
 * the role, a fresh secret and session token each run; the proxy knows them with the role's policies. Every
 * role is also one callers may assume through the proxy's STS, as its trust policy allows (link signers).
 */
function roleCredentials(deployment: Deployment, proxy: AwsProxy): Map<string, Required<Credentials>> {
  const credentials = new Map<string, Required<Credentials>>();
  for (const role of deployment.roles) proxy.addRole(role);
  for (const role of deployment.roles.filter(({ trustedServices }) => trustedServices.length > 0)) {
    const digest = createHash('sha256').update(role.arn).digest('hex').toUpperCase();
    const issued = {
      accessKeyId: `ASIA${digest.slice(0, 16)}`,
      secretAccessKey: randomBytes(30).toString('base64'),
      sessionToken: randomBytes(48).toString('base64'),
    };
    const principal: Principal = {
      ...issued,
      arn: `arn:aws:sts::${deployment.accountId}:assumed-role/${role.name}/${role.name}`,
      policies: role.policies,
    };
    proxy.addPrincipal(principal);
    credentials.set(role.arn, issued);
  }
  return credentials;
}

function requireCredentials(credentials: Map<string, Required<Credentials>>, roleArn: string) {
  const found = credentials.get(roleArn);
  if (!found) throw new Error(`no role ${roleArn} in the deployment`);
  return found;
}

/**
 * Creates the tables, queues (dead-letter queues first: a redrive policy names its DLQ) and buckets as the
 * templates declare them, as the operator; keeps what exists. Returns each table's stream ARN; `streams` false
 * leaves the tables' streams out.
 */
async function createResources(
  deployment: Deployment,
  endpoint: string,
  streams: boolean,
): Promise<Record<string, string>> {
  const config = { endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const dynamodb = new DynamoDBClient(config);
  const sqs = new SQSClient({ ...config, useQueueUrlAsEndpoint: false });
  const s3 = new S3Client({ ...config, forcePathStyle: true });
  try {
    const streamArns: Record<string, string> = {};
    for (const table of deployment.tables) {
      await createTable(dynamodb, table, streams);
      const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: table.name }));
      if (Table?.LatestStreamArn) streamArns[table.logicalId] = Table.LatestStreamArn;
    }
    const redrives = (queue: QueueSpec) => (queue.attributes.RedrivePolicy ? 1 : 0);
    for (const queue of [...deployment.queues].sort((a, b) => redrives(a) - redrives(b))) {
      await sqs.send(new CreateQueueCommand({ QueueName: queue.name, Attributes: queue.attributes }));
    }
    for (const bucket of deployment.buckets) {
      try {
        await s3.send(new CreateBucketCommand({ Bucket: bucket.name }));
      } catch (error) {
        if (!(error instanceof Error && /BucketAlready(OwnedByYou|Exists)/.test(error.name))) throw error;
      }
    }
    return streamArns;
  } finally {
    dynamodb.destroy();
    sqs.destroy();
    s3.destroy();
  }
}

async function createTable(dynamodb: DynamoDBClient, table: TableSpec, streams: boolean): Promise<void> {
  try {
    await dynamodb.send(
      new CreateTableCommand({
        TableName: table.name,
        BillingMode: table.billingMode,
        AttributeDefinitions: table.attributeDefinitions.map(({ name, type }) => ({
          AttributeName: name,
          AttributeType: type,
        })),
        KeySchema: [
          { AttributeName: table.partitionKey.name, KeyType: 'HASH' },
          ...(table.sortKey ? [{ AttributeName: table.sortKey.name, KeyType: 'RANGE' as const }] : []),
        ],
        GlobalSecondaryIndexes: table.globalSecondaryIndexes.length
          ? table.globalSecondaryIndexes.map((index) => ({
              IndexName: index.name,
              KeySchema: [
                { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
                ...(index.sortKey ? [{ AttributeName: index.sortKey, KeyType: 'RANGE' as const }] : []),
              ],
              Projection: { ProjectionType: index.projectionType, NonKeyAttributes: index.nonKeyAttributes },
            }))
          : undefined,
        StreamSpecification:
          table.streamViewType && streams
            ? { StreamEnabled: true, StreamViewType: table.streamViewType }
            : undefined,
      }),
    );
  } catch (error) {
    if (error instanceof ResourceInUseException) return; // kept from an earlier run
    throw error;
  }
  if (table.ttlAttribute) {
    await dynamodb.send(
      new UpdateTimeToLiveCommand({
        TableName: table.name,
        TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
      }),
    );
  }
}
