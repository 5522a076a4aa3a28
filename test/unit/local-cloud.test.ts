// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the templates below use CloudFormation's Fn::Sub syntax
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZERS } from '../../functions/api/authorizers';
import { endpoints } from '../../functions/api/index';
import { EVENT_RECORD_FIFO_IDS, EVENT_RECORD_PATTERN } from '../../functions/data/events';
import * as channels from '../../functions/models/channels';
import { allChannels } from '../../functions/models/channels';
import type { ResourceAccess } from '../../functions/shared/access';
import type { Channel } from '../../functions/shared/channel';
import { BUCKET_LIFECYCLE, PROOFS_PREFIX, RESOURCE_ENV } from '../../functions/shared/resources';
import { consumers } from '../../functions/workers/index';
import { METHOD_CEILING_ACCOUNTS } from '../../lib/api-stack';
import { EVENT_PIPE_BATCH_SIZE, EVENT_PIPE_RETRIES } from '../../lib/constructs/event-pipe';
import { DEFAULT_CONFIG } from '../../lib/delivery-routes';
import {
  GATEWAY_RESPONSES,
  type GatewayResponseType,
  gatewayResponseBody,
} from '../../lib/gateway-responses';
import { pascalCase } from '../../lib/naming';
import { sliceOf } from '../../lib/slices';
import { DestinationValidationError, S3Notifications } from '../../local/aws-proxy/s3-notifications';
import { Upstream } from '../../local/aws-proxy/upstream';
import { readDeployment } from '../../local/cloud/deployment';
import type { Deployment, DeploymentOptions, FunctionSpec, RoleSpec } from '../../local/cloud/model';
import { synthesizeApp } from '../../local/cloud/synth';

const OPTIONS: DeploymentOptions = { namePrefix: 'unit-cloud', awsEndpoint: 'http://127.0.0.1:4566' };
const scratch = mkdtempSync(join(tmpdir(), 'local-cloud-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * PROOF_RETENTION_DAYS as a function that reaches the proofs prefix is told it (the records of proofs and
 * delivery notes end with their objects), undefined for the others.
 */
function proofRetentionOf(access: ResourceAccess): string | undefined {
  const prefixes = [
    ...(access.bucket ? (access.bucketKeyPrefixes ?? []) : []),
    ...(access.bucketWriteKeyPrefix === undefined ? [] : [access.bucketWriteKeyPrefix]),
    ...(access.signLinks ? [access.signLinks.keyPrefix] : []),
  ];
  return prefixes.some((prefix) => prefix.startsWith(PROOFS_PREFIX))
    ? String(DEFAULT_CONFIG.proofRetentionDays)
    : undefined;
}

/** Does some Allow statement of the role grant `action` on exactly `resource` (IAM wildcards honoured)? */
function allows(role: RoleSpec, action: string, resource: string): boolean {
  const matches = (pattern: string, value: string) =>
    new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '.*')
        .replace(/\?/g, '.')}$`,
      'i',
    ).test(value);
  const list = (value: string | string[] | undefined) => (value === undefined ? [] : [value].flat());
  return role.policies.some((policy) =>
    policy.Statement.some(
      (statement) =>
        statement.Effect === 'Allow' &&
        list(statement.Action).some((pattern) => matches(pattern, action)) &&
        list(statement.Resource).some((pattern) => matches(pattern, resource)),
    ),
  );
}

describe('the synthesized app, read as a deployment', () => {
  let deployment: Deployment;

  beforeAll(async () => {
    const assemblyDir = await synthesizeApp({ outdir: join(scratch, 'app') });
    deployment = readDeployment(assemblyDir, OPTIONS);
  });

  const functionWithEntry = (entry: string): FunctionSpec => {
    const matching = deployment.functions.filter((fn) => fn.entry === entry);
    expect(matching, entry).toHaveLength(1);
    return matching[0] as FunctionSpec;
  };
  const roleOf = (fn: FunctionSpec): RoleSpec => {
    const role = deployment.roles.find((candidate) => candidate.arn === fn.roleArn);
    if (!role) throw new Error(`no role ${fn.roleArn}`);
    return role;
  };
  const queueOf = (channel: Channel, deadLetter = false) => {
    const logicalIdStart = `${pascalCase(channel.name)}${deadLetter ? 'DeadLetterQueue' : 'Queue'}`;
    const queue = deployment.queues.find((candidate) => candidate.logicalId.startsWith(logicalIdStart));
    if (!queue) throw new Error(`no queue ${logicalIdStart}`);
    return queue;
  };
  const table = () => {
    expect(deployment.tables).toHaveLength(1);
    return deployment.tables[0] as Deployment['tables'][number];
  };

  it('has one function per slice of the endpoints and authorizers, and one per consumer', () => {
    const endpointHandlers = new Set(endpoints.map((endpoint) => sliceOf(endpoint.module).repoEntry));
    const authorizerHandlers = Object.values(AUTHORIZERS).map(
      (authorizer) => sliceOf(authorizer.module).repoEntry,
    );
    for (const entry of [
      ...endpointHandlers,
      ...authorizerHandlers,
      ...consumers.map((c) => sliceOf(c.module).repoEntry),
    ]) {
      functionWithEntry(entry);
    }
    expect(deployment.functions).toHaveLength(
      endpointHandlers.size + authorizerHandlers.length + consumers.length,
    );
    for (const fn of deployment.functions) {
      expect(fn.name.length).toBeLessThanOrEqual(64);
      expect(fn.arn).toBe(`arn:aws:lambda:us-east-1:000000000000:function:${fn.name}`);
      expect(fn.runtime).toBe('nodejs22.x');
      expect(fn.handler).toBe('index.handler');
    }
  });

  it.each(consumers)(
    'consumer $id: its function, queue and event source as its consumer row declares',
    (consumer) => {
      const fn = functionWithEntry(sliceOf(consumer.module).repoEntry);
      expect(fn.timeoutSeconds).toBe(consumer.timeoutSeconds);
      expect(fn.memorySize).toBe(consumer.memorySize);
      expect(fn.environment[RESOURCE_ENV.table]).toBe(table().name);
      expect(RESOURCE_ENV.bucket in fn.environment).toBe(consumer.access.bucket !== undefined);
      expect(fn.environment[RESOURCE_ENV.proofRetentionDays]).toBe(proofRetentionOf(consumer.access));
      for (const channel of consumer.access.sendTo ?? [])
        expect(fn.environment[channel.urlEnv]).toBe(queueOf(channel).url);

      const mappings = deployment.eventSourceMappings.filter((mapping) => mapping.functionName === fn.name);
      expect(mappings).toHaveLength(1);
      expect(mappings[0]).toMatchObject({
        eventSourceArn: queueOf(consumer.queue, consumer.deadLetters === true).arn,
        batchSize: consumer.batchSize,
        maximumConcurrency: consumer.maxConcurrency,
        maximumBatchingWindowSeconds: 0,
        reportBatchItemFailures: true,
        enabled: true,
        filterPatterns: [],
      });
    },
  );

  it.each(allChannels)('queue $name: visibility timeout and redrive to its DLQ', (channel) => {
    const queue = queueOf(channel);
    const deadLetterQueue = queueOf(channel, true);
    expect(queue.url).toBe(`${OPTIONS.awsEndpoint}/000000000000/${queue.name}`);
    expect(queue.name.length).toBeLessThanOrEqual(80);
    expect(queue.attributes.VisibilityTimeout).toBe(String(channel.visibilityTimeoutSeconds));
    expect(JSON.parse(queue.attributes.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: deadLetterQueue.arn,
      maxReceiveCount: channel.maxReceiveCount,
    });
    expect(deadLetterQueue.attributes.RedrivePolicy).toBeUndefined();
    // Encryption is AWS's business; the local queues take only what CreateQueue needs.
    expect(Object.keys(queue.attributes)).not.toContain('SqsManagedSseEnabled');
  });

  it('has the table with its keys, indexes, stream and TTL', () => {
    expect(table()).toMatchObject({
      partitionKey: { name: 'pk', type: 'S' },
      sortKey: { name: 'sk', type: 'S' },
      billingMode: 'PAY_PER_REQUEST',
      streamViewType: 'NEW_IMAGE',
      streamArn: `${table().arn}/stream/pending`,
      ttlAttribute: 'expires_at',
    });
    expect(table().globalSecondaryIndexes.map((index) => index.name)).toEqual(['gsi1', 'gsi2']);
  });

  it.each([
    { channel: channels.events, pipeId: 'EventPipe', sqsTarget: undefined },
    { channel: channels.feed, pipeId: 'FeedPipe', sqsTarget: EVENT_RECORD_FIFO_IDS },
  ])(
    'relays new event records from the table stream to the $channel.name queue, failures to its DLQ',
    ({ channel, pipeId, sqsTarget }) => {
      expect(deployment.pipes).toHaveLength(2);
      const pipe = deployment.pipes.find((candidate) => candidate.target === queueOf(channel).arn);
      expect(pipe).toMatchObject({
        source: table().streamArn,
        target: queueOf(channel).arn,
        filterPatterns: [JSON.stringify(EVENT_RECORD_PATTERN)],
        streamSource: {
          startingPosition: 'TRIM_HORIZON',
          batchSize: EVENT_PIPE_BATCH_SIZE,
          deadLetterArn: expect.any(String),
          maximumRetryAttempts: EVENT_PIPE_RETRIES.maximumRetryAttempts,
          maximumRecordAgeSeconds: EVENT_PIPE_RETRIES.maximumRecordAge.toSeconds(),
          parallelizationFactor: 1,
        },
      });
      expect(pipe?.sqsTarget).toEqual(sqsTarget);
      // Its own dead-letter queue (not the target queue's), which it may send to.
      const deadLetter = deployment.queues.find((queue) => queue.arn === pipe?.streamSource?.deadLetterArn);
      expect(deadLetter?.logicalId).toMatch(new RegExp(`^${pipeId}DeadLetterQueue[0-9A-F]{8}$`));
      const role = deployment.roles.find((candidate) => candidate.arn === pipe?.roleArn);
      expect(role && allows(role, 'sqs:SendMessage', queueOf(channel).arn)).toBe(true);
      expect(role && allows(role, 'sqs:SendMessage', deadLetter?.arn ?? '')).toBe(true);
    },
  );

  it.each(endpoints)('$method $path: a method with its function and auth', (endpoint) => {
    const [api] = deployment.restApis;
    const methods =
      api?.methods.filter((m) => m.path === endpoint.path && m.httpMethod === endpoint.method) ?? [];
    expect(methods).toHaveLength(1);
    const method = methods[0];
    const fn = functionWithEntry(sliceOf(endpoint.module).repoEntry);
    expect(method?.integration).toEqual({ type: 'AWS_PROXY', functionName: fn.name });
    expect(method?.operationName).toBe(endpoint.operationId);
    expect(RESOURCE_ENV.bucket in fn.environment).toBe(
      endpoint.access.bucket !== undefined || endpoint.access.signLinks !== undefined,
    );
    expect(RESOURCE_ENV.table in fn.environment).toBe(endpoint.access.table !== undefined);
    expect(fn.environment[RESOURCE_ENV.proofRetentionDays]).toBe(proofRetentionOf(endpoint.access));

    const authorizerDefinition = AUTHORIZERS[endpoint.auth];
    if (!authorizerDefinition) {
      expect(method?.authorizationType).toBe('NONE');
      return;
    }
    expect(method?.authorizationType).toBe('CUSTOM');
    const authorizer = api?.authorizers.find(
      (candidate) => candidate.logicalId === method?.authorizerLogicalId,
    );
    expect(authorizer).toMatchObject({
      type: 'REQUEST',
      functionName: functionWithEntry(sliceOf(authorizerDefinition.module).repoEntry).name,
      identitySources: ['method.request.header.Authorization'],
      resultTtlSeconds: authorizerDefinition.cacheTtlSeconds,
    });
  });

  it('has one REST API with exactly the endpoint list, compression and the stage', () => {
    expect(deployment.restApis).toHaveLength(1);
    const [api] = deployment.restApis;
    expect(api?.methods).toHaveLength(endpoints.length);
    expect(api?.minimumCompressionSize).toBe(1024);
    expect(api?.stages).toHaveLength(1);
    const stage = api?.stages[0];
    expect(stage).toMatchObject({
      stageName: DEFAULT_CONFIG.stageName,
      throttlingRateLimit: DEFAULT_CONFIG.throttlingRateLimit,
      throttlingBurstLimit: DEFAULT_CONFIG.throttlingBurstLimit,
      tracingEnabled: true,
    });
    for (const endpoint of endpoints.filter((e) => e.throttling)) {
      // A ceiling of several accounts on an account's method; a public method's own limit as it is.
      const callers = endpoint.auth === 'none' ? 1 : METHOD_CEILING_ACCOUNTS;
      expect(stage?.methodSettings).toContainEqual({
        resourcePath: `/${endpoint.path.replaceAll('/', '~1')}`,
        httpMethod: endpoint.method,
        throttlingRateLimit: (endpoint.throttling?.rateLimit ?? 0) * callers,
        throttlingBurstLimit: (endpoint.throttling?.burstLimit ?? 0) * callers,
      });
    }
  });

  it('takes usage keys from the authorizer and has the accounts’ usage plan on the stage', () => {
    const [api] = deployment.restApis;
    expect(api?.apiKeySource).toBe('AUTHORIZER');
    expect(api?.usagePlans).toEqual([
      expect.objectContaining({
        throttle: {
          rateLimit: DEFAULT_CONFIG.accountThrottlingRateLimit,
          burstLimit: DEFAULT_CONFIG.accountThrottlingBurstLimit,
        },
        stages: [DEFAULT_CONFIG.stageName],
        methodThrottles: endpoints
          .filter((e) => e.throttling && e.auth === 'apiKey')
          .map((e) => ({
            stage: DEFAULT_CONFIG.stageName,
            path: e.path,
            httpMethod: e.method,
            rateLimit: e.throttling?.rateLimit,
            burstLimit: e.throttling?.burstLimit,
          })),
        keys: [],
      }),
    ]);
    for (const endpoint of endpoints) {
      const method = api?.methods.find((m) => m.path === endpoint.path && m.httpMethod === endpoint.method);
      expect(method?.apiKeyRequired, endpoint.operationId).toBe(endpoint.auth === 'apiKey');
    }
  });

  it.each(Object.keys(GATEWAY_RESPONSES) as GatewayResponseType[])('gateway response %s', (type) => {
    const response = deployment.restApis[0]?.gatewayResponses.find((r) => r.responseType === type);
    expect(response?.statusCode).toBe(GATEWAY_RESPONSES[type].statusCode);
    expect(response?.responseTemplates).toEqual({ 'application/json': gatewayResponseBody(type) });
    expect(response?.responseParameters).toEqual({
      'gatewayresponse.header.Content-Type': "'application/json'",
      // The local gateway renders these static headers as API Gateway does: every 429 says when to retry.
      ...(GATEWAY_RESPONSES[type].statusCode === 429 ? { 'gatewayresponse.header.Retry-After': "'1'" } : {}),
    });
  });

  it('has the webhook secrets key, symmetric and enabled, and tells exactly the functions that use it its ARN', () => {
    const key = deployment.keys.find((candidate) => candidate.logicalId.startsWith('WebhookSecretsKey'));
    expect(key).toMatchObject({
      arn: `arn:aws:kms:us-east-1:000000000000:key/${key?.keyId}`,
      keySpec: 'SYMMETRIC_DEFAULT',
      keyUsage: 'ENCRYPT_DECRYPT',
      enabled: true,
    });
    expect(key?.keyId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const told = deployment.functions
      .filter((fn) => fn.environment[RESOURCE_ENV.webhookSecretsKeyArn] !== undefined)
      .map((fn) => {
        expect(fn.environment[RESOURCE_ENV.webhookSecretsKeyArn]).toBe(key?.arn);
        return fn.entry;
      })
      .sort();
    // Webhook secrets' functions, stop PINs' and recipients' (sealed under the same key with contexts of their own).
    expect(told).toEqual([
      'functions/api/driver-app/start/handler.ts',
      'functions/api/routes/reset-pin/handler.ts',
      'functions/api/routes/start/handler.ts',
      'functions/api/tracking/page/handler.ts',
      'functions/api/tracking/unsubscribe/handler.ts',
      'functions/api/webhooks/create/handler.ts',
      'functions/api/webhooks/rotate-secret/handler.ts',
      'functions/workers/deliver-webhooks/handler.ts',
      'functions/workers/import-routes/handler.ts',
      'functions/workers/send-notifications/handler.ts',
    ]);
  });

  it('gives a read-only function GetItem but not PutItem on the table', () => {
    const readOnly = endpoints.find((endpoint) => endpoint.access.table === 'read');
    const readWrite = endpoints.find((endpoint) => endpoint.access.table === 'readWrite');
    if (!readOnly || !readWrite)
      throw new Error('the endpoint list has no read-only or no read-write endpoint');
    const readerRole = roleOf(functionWithEntry(sliceOf(readOnly.module).repoEntry));
    expect(allows(readerRole, 'dynamodb:GetItem', table().arn)).toBe(true);
    expect(allows(readerRole, 'dynamodb:Query', `${table().arn}/index/gsi1`)).toBe(true);
    expect(allows(readerRole, 'dynamodb:PutItem', table().arn)).toBe(false);
    expect(
      allows(roleOf(functionWithEntry(sliceOf(readWrite.module).repoEntry)), 'dynamodb:PutItem', table().arn),
    ).toBe(true);
  });

  it('lets every function write to its own log group only', () => {
    for (const fn of deployment.functions) {
      const role = roleOf(fn);
      const logGroupArn = `arn:aws:logs:us-east-1:000000000000:log-group:${fn.logGroupName}:*`;
      expect(allows(role, 'logs:PutLogEvents', logGroupArn), fn.name).toBe(true);
      expect(allows(role, 'logs:PutLogEvents', 'arn:aws:logs:us-east-1:000000000000:log-group:other:*')).toBe(
        false,
      );
    }
  });

  it("notifies the imports queue of uploads and the proof uploads queue of proofs, as the queues' policies let S3 do for this bucket only", () => {
    const [bucket] = deployment.buckets;
    const queueArn = (prefix: string) =>
      deployment.queues.find((queue) => queue.logicalId.startsWith(prefix))?.arn;
    expect(bucket?.notificationConfiguration).toEqual({
      QueueConfigurations: [
        {
          Event: 's3:ObjectCreated:*',
          Filter: { S3Key: { Rules: [{ Name: 'prefix', Value: 'uploads/' }] } },
          Queue: queueArn('ImportsQueue'),
        },
        {
          Event: 's3:ObjectCreated:*',
          Filter: { S3Key: { Rules: [{ Name: 'prefix', Value: 'proofs/' }] } },
          Queue: queueArn('ProofUploadsQueue'),
        },
      ],
    });
    const notifications = new S3Notifications(new Upstream(OPTIONS.awsEndpoint));
    expect(() => notifications.configure(deployment)).not.toThrow();

    // Without the policy's statement for S3, or from another bucket, S3 could not validate the destination.
    const withoutS3 = deployment.queuePolicies.map((policy) => ({
      ...policy,
      document: {
        ...policy.document,
        Statement: policy.document.Statement.filter(
          (statement) => !JSON.stringify(statement.Principal ?? '').includes('s3.amazonaws.com'),
        ),
      },
    }));
    expect(() => notifications.configure({ ...deployment, queuePolicies: withoutS3 })).toThrow(
      DestinationValidationError,
    );
    const otherBucket = {
      ...(bucket as NonNullable<typeof bucket>),
      arn: 'arn:aws:s3:::someone-elses-bucket',
    };
    expect(() => notifications.configure({ ...deployment, buckets: [otherBucket] })).toThrow(
      /does not let s3\.amazonaws\.com send messages from arn:aws:s3:::someone-elses-bucket/,
    );
  });

  it('expires objects by the bucket’s lifecycle rules, proofs and delivery notes after proofRetentionDays', () => {
    const [bucket] = deployment.buckets;
    expect(bucket?.expirationRules).toEqual([
      ...BUCKET_LIFECYCLE.map(({ prefix, expireAfterDays }) => ({
        id: `expire-${prefix.replace(/\/$/, '')}`,
        prefix,
        expireAfterDays,
      })),
      { id: 'expire-proofs', prefix: PROOFS_PREFIX, expireAfterDays: DEFAULT_CONFIG.proofRetentionDays },
    ]);
  });

  it('does not load CDK when local/cloud is imported', () => {
    // CDK is CommonJS: once loaded, its files are in the require cache (the second count proves the check).
    const script = [
      "import { createRequire } from 'node:module';",
      'const cdkFiles = () => Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes("aws-cdk-lib")).length;',
      "await import('./local/cloud/deployment.ts');",
      "await import('./local/cloud/synth.ts');",
      'const afterLocalCloud = cdkFiles();',
      "await import('aws-cdk-lib');",
      'console.log(JSON.stringify([afterLocalCloud, cdkFiles() > 0]));',
    ].join('\n');
    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: join(import.meta.dirname, '../..'),
      encoding: 'utf8',
    });
    expect(JSON.parse(output.trim().split('\n').at(-1) ?? 'null')).toEqual([0, true]);
  });
});

describe('a change made in CDK', () => {
  it('shows in the deployment with no other edit', async () => {
    const assemblyDir = await synthesizeApp({
      outdir: join(scratch, 'customized'),
      customize: ({ api, stateful }) => {
        const worker = api.consumerFunctions.get('exportAnalytics');
        const lister = api.endpointFunctions.get('dcs/list');
        if (!worker || !lister)
          throw new Error('the app has no exportAnalytics consumer or dcs/list function');
        // The L1 escape hatch, an environment variable and a cross-stack grant.
        (worker.node.defaultChild as CfnFunction).timeout = 42;
        lister.addEnvironment('CUSTOMIZED', 'yes');
        stateful.queueOf(channels.analytics).queue.grantSendMessages(lister);
      },
    });
    const deployment = readDeployment(assemblyDir, OPTIONS);
    const byEntry = (entry: string) => deployment.functions.find((fn) => fn.entry === entry);
    expect(byEntry('functions/workers/export-analytics/handler.ts')?.timeoutSeconds).toBe(42);
    const lister = byEntry('functions/api/dcs/list/handler.ts');
    expect(lister?.environment.CUSTOMIZED).toBe('yes');
    const role = deployment.roles.find((candidate) => candidate.arn === lister?.roleArn);
    const analyticsQueue = deployment.queues.find((queue) => queue.logicalId.startsWith('AnalyticsQueue'));
    expect(role && analyticsQueue && allows(role, 'sqs:SendMessage', analyticsQueue.arn)).toBe(true);
  });
});
