import { BUNDLE_METADATA_KEY } from '../../lib/bundling';
import { policyDocument, readRoles } from './iam';
import { isPlainObject } from './intrinsics';
import {
  type BucketSpec,
  type Deployment,
  type DeploymentOptions,
  type EventSourceMappingSpec,
  type FunctionSpec,
  type KmsKeySpec,
  LOCAL_ACCOUNT_ID,
  LOCAL_REGION,
  type PipeSpec,
  type QueuePolicySpec,
  type QueueSpec,
  type TableSpec,
  type TopicSubscriptionSpec,
} from './model';
import { functionNameOf, type ResourceProperties, readEach, resourceError } from './properties';
import { readRestApis } from './rest-api';
import { CloudTemplates } from './templates';

/** Lambda's defaults for what a template leaves out (CreateFunction / CreateEventSourceMapping). */
const LAMBDA_DEFAULTS = { memorySize: 128, timeoutSeconds: 3, architectures: ['x86_64'] } as const;
/** Event source mapping batch sizes: SQS 10, streams 100 (Lambda's parameter tables per source). */
const DEFAULT_BATCH_SIZE: Record<string, number> = { sqs: 10, dynamodb: 100, kinesis: 100 };

/**
 * EventBridge Pipes' DynamoDB stream source defaults (AWS::Pipes::Pipe PipeSourceDynamoDBStreamParameters):
 * retries and record age -1 (infinite), one batch per shard at a time, no batching window; a batch size of
 * 1 is the default CDK's pipes sources document.
 */
const PIPE_STREAM_DEFAULTS = {
  batchSize: 1,
  maximumBatchingWindowSeconds: 0,
  maximumRetryAttempts: -1,
  maximumRecordAgeSeconds: -1,
  parallelizationFactor: 1,
} as const;

/** The SQS queue attributes CreateQueue takes that the local runtime honours, by their CloudFormation name. */
const QUEUE_ATTRIBUTES = [
  'VisibilityTimeout',
  'DelaySeconds',
  'MaximumMessageSize',
  'MessageRetentionPeriod',
  'ReceiveMessageWaitTimeSeconds',
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
] as const;

/**
 * Reads the deployment from a synthesized cloud assembly: every table, queue, bucket, role, function, event
 * source mapping, pipe and REST API of every template (nested stacks included), with names, ARNs and URLs
 * made local (`options`).
 */
export function readDeployment(assemblyDir: string, options: DeploymentOptions): Deployment {
  const templates = CloudTemplates.load(assemblyDir, options);
  const queues = readEach(templates, 'AWS::SQS::Queue', readQueue);
  const deployment: Deployment = {
    accountId: LOCAL_ACCOUNT_ID,
    region: LOCAL_REGION,
    tables: readEach(templates, 'AWS::DynamoDB::Table', readTable),
    queues,
    queuePolicies: readEach(templates, 'AWS::SQS::QueuePolicy', (policy) => readQueuePolicy(policy, queues)),
    topicSubscriptions: readEach(templates, 'AWS::SNS::Subscription', readSubscription).filter(
      (subscription) => subscription !== undefined,
    ),
    buckets: readBuckets(templates),
    keys: readEach(templates, 'AWS::KMS::Key', readKey),
    roles: readRoles(templates),
    functions: readEach(templates, 'AWS::Lambda::Function', readFunction),
    eventSourceMappings: readEach(templates, 'AWS::Lambda::EventSourceMapping', readEventSourceMapping),
    pipes: readEach(templates, 'AWS::Pipes::Pipe', readPipe),
    restApis: readRestApis(templates),
  };
  for (const kind of ['tables', 'queues', 'buckets', 'roles', 'functions', 'pipes'] as const) {
    assertUniqueNames(kind, deployment[kind]);
  }
  return deployment;
}

/** Two resources with one name would share one local resource; CloudFormation refuses to create the second. */
function assertUniqueNames(
  kind: string,
  specs: readonly { name: string; logicalId: string; stackPath: string }[],
) {
  const seen = new Map<string, string>();
  for (const spec of specs) {
    const where = `${spec.stackPath}/${spec.logicalId}`;
    const other = seen.get(spec.name);
    if (other) throw new Error(`${kind}: ${other} and ${where} both have the name ${spec.name}`);
    seen.set(spec.name, where);
  }
}

function located(resource: ResourceProperties) {
  return { logicalId: resource.logicalId, stackPath: resource.stackPath };
}

function attribute(resource: ResourceProperties, name: string): string {
  return String(resource.templates.getAtt(resource.declared.stack, resource.logicalId, name));
}

type KeyType = 'S' | 'N' | 'B';

function readTable(table: ResourceProperties): TableSpec {
  const attributeDefinitions = table.list('AttributeDefinitions').map((_definition, index) => ({
    name: table.requiredString(`AttributeDefinitions.${index}.AttributeName`),
    type: keyType(table, `AttributeDefinitions.${index}.AttributeType`),
  }));
  const keyOf = (path: string, keyType: 'HASH' | 'RANGE') => {
    const index = table.list(path).findIndex((_key, i) => table.string(`${path}.${i}.KeyType`) === keyType);
    return index < 0 ? undefined : table.requiredString(`${path}.${index}.AttributeName`);
  };
  const typed = (name: string) => {
    const definition = attributeDefinitions.find((d) => d.name === name);
    if (!definition) throw table.fail('AttributeDefinitions', `has no definition of key attribute ${name}`);
    return { name, type: definition.type };
  };
  const partitionKey = keyOf('KeySchema', 'HASH') ?? noHashKey(table, 'KeySchema');
  const sortKey = keyOf('KeySchema', 'RANGE');
  const streamViewType = table.string('StreamSpecification.StreamViewType') as TableSpec['streamViewType'];
  const ttlEnabled = table.boolean('TimeToLiveSpecification.Enabled') === true;
  return {
    ...located(table),
    name: table.physicalId,
    arn: attribute(table, 'Arn'),
    partitionKey: typed(partitionKey),
    ...(sortKey === undefined ? {} : { sortKey: typed(sortKey) }),
    attributeDefinitions,
    globalSecondaryIndexes: table.list('GlobalSecondaryIndexes').map((_index, i) => {
      const at = `GlobalSecondaryIndexes.${i}`;
      const nonKeyAttributes = table.list(`${at}.Projection.NonKeyAttributes`).map(String);
      const indexSortKey = keyOf(`${at}.KeySchema`, 'RANGE');
      return {
        name: table.requiredString(`${at}.IndexName`),
        partitionKey: keyOf(`${at}.KeySchema`, 'HASH') ?? noHashKey(table, `${at}.KeySchema`),
        ...(indexSortKey === undefined ? {} : { sortKey: indexSortKey }),
        // Without a type, the narrowest projection: a query that needs more fails locally too.
        projectionType: (table.string(`${at}.Projection.ProjectionType`) ?? 'KEYS_ONLY') as
          | 'ALL'
          | 'KEYS_ONLY'
          | 'INCLUDE',
        ...(nonKeyAttributes.length > 0 ? { nonKeyAttributes } : {}),
      };
    }),
    // CloudFormation's default billing mode.
    billingMode: table.string('BillingMode') === 'PAY_PER_REQUEST' ? 'PAY_PER_REQUEST' : 'PROVISIONED',
    ...(streamViewType ? { streamViewType, streamArn: attribute(table, 'StreamArn') } : {}),
    ...(ttlEnabled ? { ttlAttribute: table.requiredString('TimeToLiveSpecification.AttributeName') } : {}),
  };
}

function noHashKey(table: ResourceProperties, path: string): never {
  throw table.fail(path, 'has no HASH key');
}

function keyType(table: ResourceProperties, path: string): KeyType {
  const type = table.requiredString(path);
  if (type !== 'S' && type !== 'N' && type !== 'B') throw table.fail(path, `expected S, N or B, got ${type}`);
  return type;
}

function readQueue(queue: ResourceProperties): QueueSpec {
  const attributes: Record<string, string> = {};
  for (const name of QUEUE_ATTRIBUTES) {
    const value = queue.value(name);
    if (value !== undefined) attributes[name] = String(value);
  }
  const redrive = redrivePolicy(queue);
  if (redrive) attributes.RedrivePolicy = redrive;
  return {
    ...located(queue),
    name: queue.physicalId,
    arn: attribute(queue, 'Arn'),
    url: attribute(queue, 'QueueUrl'),
    attributes,
  };
}

function readQueuePolicy(policy: ResourceProperties, queues: readonly QueueSpec[]): QueuePolicySpec {
  const queueArns = policy.list('Queues').map((url, index) => {
    const queue = queues.find((candidate) => candidate.url === url);
    if (!queue) throw policy.fail(`Queues.${index}`, `${String(url)} is not a queue of the deployment`);
    return queue.arn;
  });
  return { ...located(policy), queueArns, document: policyDocument(policy, 'PolicyDocument') };
}

/** A queue's subscription to a topic; undefined for another protocol (an alarm's email). */
function readSubscription(subscription: ResourceProperties): TopicSubscriptionSpec | undefined {
  if (subscription.string('Protocol') !== 'sqs') return undefined;
  return {
    ...located(subscription),
    topicArn: subscription.requiredString('TopicArn'),
    queueArn: subscription.requiredString('Endpoint'),
    rawMessageDelivery: subscription.boolean('RawMessageDelivery') ?? false,
  };
}

/** RedrivePolicy as SQS takes it: JSON with the DLQ's ARN and the receive count (an object or JSON text). */
function redrivePolicy(queue: ResourceProperties): string | undefined {
  let policy = queue.value('RedrivePolicy');
  if (policy === undefined) return undefined;
  if (typeof policy === 'string') policy = JSON.parse(policy);
  if (!isPlainObject(policy) || typeof policy.deadLetterTargetArn !== 'string') {
    throw queue.fail('RedrivePolicy', 'expected { deadLetterTargetArn, maxReceiveCount }');
  }
  const maxReceiveCount = Number(policy.maxReceiveCount);
  if (!Number.isInteger(maxReceiveCount))
    throw queue.fail('RedrivePolicy.maxReceiveCount', 'expected an integer');
  return JSON.stringify({ deadLetterTargetArn: policy.deadLetterTargetArn, maxReceiveCount });
}

function readKey(key: ResourceProperties): KmsKeySpec {
  return {
    ...located(key),
    keyId: key.physicalId,
    arn: attribute(key, 'Arn'),
    keySpec: key.string('KeySpec') ?? 'SYMMETRIC_DEFAULT',
    keyUsage: key.string('KeyUsage') ?? 'ENCRYPT_DECRYPT',
    enabled: key.boolean('Enabled') !== false,
  };
}

/**
 * Buckets, with notifications from the bucket's own NotificationConfiguration and from the
 * Custom::S3BucketNotifications resources CDK adds for `bucket.addEventNotification` (matched by name).
 */
function readBuckets(templates: CloudTemplates): BucketSpec[] {
  const notifications = readEach(templates, 'Custom::S3BucketNotifications', (custom) => ({
    bucketName: custom.requiredString('BucketName'),
    configuration: custom.object('NotificationConfiguration') ?? {},
  }));
  return readEach(templates, 'AWS::S3::Bucket', (bucket): BucketSpec => {
    const name = bucket.physicalId;
    const configurations = [
      bucket.object('NotificationConfiguration'),
      ...notifications.filter((n) => n.bucketName === name).map((n) => n.configuration),
    ].filter((configuration) => configuration !== undefined);
    return {
      ...located(bucket),
      name,
      arn: attribute(bucket, 'Arn'),
      expirationRules: expirationRulesOf(bucket),
      ...(configurations.length > 0
        ? { notificationConfiguration: mergeConfigurations(configurations) }
        : {}),
    };
  });
}

/**
 * The bucket's enabled `LifecycleConfiguration` rules that expire current objects after `ExpirationInDays`,
 * with the key prefix each applies to (`Prefix`, or `Filter.Prefix`; none for every object). Rules that only
 * abort multipart uploads are left out; an expiration the local runtime cannot apply (a date, a filter by tag
 * or size) fails the start rather than keep objects AWS would delete.
 */
function expirationRulesOf(bucket: ResourceProperties): BucketSpec['expirationRules'] {
  const rules = bucket.list('LifecycleConfiguration.Rules') as Record<string, unknown>[];
  return rules.flatMap((rule, index) => {
    const path = `LifecycleConfiguration.Rules.${index}`;
    if (rule.Status !== 'Enabled') return [];
    const days = rule.ExpirationInDays;
    if (days === undefined) {
      if (rule.ExpirationDate !== undefined) throw bucket.fail(path, 'ExpirationDate is not applied locally');
      return [];
    }
    const filter = (rule.Filter ?? {}) as Record<string, unknown>;
    if (Object.keys(filter).some((key) => key !== 'Prefix'))
      throw bucket.fail(path, 'only a Prefix filter is applied locally');
    const prefix = rule.Prefix ?? filter.Prefix ?? '';
    if (typeof days !== 'number' || typeof prefix !== 'string')
      throw bucket.fail(path, 'ExpirationInDays must be a number and Prefix a string');
    return [{ id: String(rule.Id ?? index), prefix, expireAfterDays: days }];
  });
}

/** Notification configurations merged: the lists of each kind (QueueConfigurations, ...) concatenated. */
function mergeConfigurations(configurations: Record<string, unknown>[]): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const configuration of configurations) {
    for (const [key, value] of Object.entries(configuration)) {
      const existing = merged[key];
      merged[key] = Array.isArray(existing) && Array.isArray(value) ? [...existing, ...value] : value;
    }
  }
  return merged;
}

function readFunction(fn: ResourceProperties): FunctionSpec {
  const bundle = fn.declared.resource.Metadata?.[BUNDLE_METADATA_KEY];
  const metadataPath = `Metadata.${BUNDLE_METADATA_KEY}`;
  if (!isPlainObject(bundle) || typeof bundle.entry !== 'string') {
    throw resourceError(
      fn,
      metadataPath,
      'the function has no bundle metadata: the local runtime cannot tell what to run',
    );
  }
  const bundledFiles = bundle.bundledFiles ?? [];
  if (!Array.isArray(bundledFiles) || !bundledFiles.every((file) => typeof file === 'string')) {
    throw resourceError(fn, `${metadataPath}.bundledFiles`, 'expected a list of file paths');
  }
  const define = bundle.define ?? {};
  if (!isPlainObject(define) || !Object.values(define).every((value) => typeof value === 'string')) {
    throw resourceError(fn, `${metadataPath}.define`, 'expected an object of strings');
  }
  const name = fn.physicalId;
  const reservedConcurrency = fn.number('ReservedConcurrentExecutions');
  const architectures = fn.list('Architectures').map(String);
  return {
    ...located(fn),
    name,
    arn: attribute(fn, 'Arn'),
    entry: bundle.entry,
    bundledFiles,
    define: define as Record<string, string>,
    handler: fn.requiredString('Handler'),
    runtime: fn.requiredString('Runtime'),
    architectures: architectures.length > 0 ? architectures : [...LAMBDA_DEFAULTS.architectures],
    memorySize: fn.number('MemorySize') ?? LAMBDA_DEFAULTS.memorySize,
    timeoutSeconds: fn.number('Timeout') ?? LAMBDA_DEFAULTS.timeoutSeconds,
    environment: environmentOf(fn),
    roleArn: fn.requiredString('Role'),
    ...(reservedConcurrency === undefined ? {} : { reservedConcurrency }),
    // Lambda's own log group unless LoggingConfig names another.
    logGroupName: fn.string('LoggingConfig.LogGroup') ?? `/aws/lambda/${name}`,
  };
}

function environmentOf(fn: ResourceProperties): Record<string, string> {
  const variables = fn.object('Environment.Variables') ?? {};
  return Object.fromEntries(
    Object.entries(variables).map(([key, value]) => {
      if (typeof value === 'object' || value === undefined) {
        throw fn.fail(`Environment.Variables.${key}`, `expected a string, got ${JSON.stringify(value)}`);
      }
      return [key, String(value)];
    }),
  );
}

function readEventSourceMapping(mapping: ResourceProperties): EventSourceMappingSpec {
  const eventSourceArn = mapping.requiredString('EventSourceArn');
  const service = eventSourceArn.split(':')[2] ?? '';
  const defaultBatchSize = DEFAULT_BATCH_SIZE[service];
  if (defaultBatchSize === undefined) {
    throw mapping.fail('EventSourceArn', `${service} event sources are not supported by the local runtime`);
  }
  const maximumConcurrency = mapping.number('ScalingConfig.MaximumConcurrency');
  return {
    ...located(mapping),
    functionName: functionNameOf(mapping.requiredString('FunctionName')),
    eventSourceArn,
    batchSize: mapping.number('BatchSize') ?? defaultBatchSize,
    maximumBatchingWindowSeconds: mapping.number('MaximumBatchingWindowInSeconds') ?? 0,
    ...(maximumConcurrency === undefined ? {} : { maximumConcurrency }),
    reportBatchItemFailures: mapping.list('FunctionResponseTypes').includes('ReportBatchItemFailures'),
    enabled: mapping.boolean('Enabled') ?? true,
    filterPatterns: mapping.filterPatterns('FilterCriteria'),
  };
}

function readPipe(pipe: ResourceProperties): PipeSpec {
  const source = pipe.requiredString('Source');
  return {
    ...located(pipe),
    name: pipe.physicalId,
    roleArn: pipe.requiredString('RoleArn'),
    source,
    target: pipe.requiredString('Target'),
    filterPatterns: pipe.filterPatterns('SourceParameters.FilterCriteria'),
    ...(isDynamoDbStream(pipe, source) ? { streamSource: streamSourceOf(pipe) } : {}),
    ...sqsTargetOf(pipe),
  };
}

function sqsTargetOf(pipe: ResourceProperties): Pick<PipeSpec, 'sqsTarget'> {
  const at = 'TargetParameters.SqsQueueParameters';
  const messageGroupId = pipe.string(`${at}.MessageGroupId`);
  const messageDeduplicationId = pipe.string(`${at}.MessageDeduplicationId`);
  if (messageGroupId === undefined && messageDeduplicationId === undefined) return {};
  return {
    sqsTarget: {
      ...(messageGroupId === undefined ? {} : { messageGroupId }),
      ...(messageDeduplicationId === undefined ? {} : { messageDeduplicationId }),
    },
  };
}

function isDynamoDbStream(pipe: ResourceProperties, source: string): boolean {
  return (
    source.split(':')[2] === 'dynamodb' ||
    pipe.value('SourceParameters.DynamoDBStreamParameters') !== undefined
  );
}

function streamSourceOf(pipe: ResourceProperties): NonNullable<PipeSpec['streamSource']> {
  const at = 'SourceParameters.DynamoDBStreamParameters';
  const startingPosition = pipe.requiredString(`${at}.StartingPosition`);
  if (startingPosition !== 'TRIM_HORIZON' && startingPosition !== 'LATEST') {
    throw pipe.fail(`${at}.StartingPosition`, `expected TRIM_HORIZON or LATEST, got ${startingPosition}`);
  }
  const deadLetterArn = pipe.string(`${at}.DeadLetterConfig.Arn`);
  const onPartialBatchItemFailure = pipe.string(`${at}.OnPartialBatchItemFailure`);
  return {
    batchSize: pipe.number(`${at}.BatchSize`) ?? PIPE_STREAM_DEFAULTS.batchSize,
    startingPosition,
    maximumBatchingWindowSeconds:
      pipe.number(`${at}.MaximumBatchingWindowInSeconds`) ??
      PIPE_STREAM_DEFAULTS.maximumBatchingWindowSeconds,
    maximumRetryAttempts:
      pipe.number(`${at}.MaximumRetryAttempts`) ?? PIPE_STREAM_DEFAULTS.maximumRetryAttempts,
    maximumRecordAgeSeconds:
      pipe.number(`${at}.MaximumRecordAgeInSeconds`) ?? PIPE_STREAM_DEFAULTS.maximumRecordAgeSeconds,
    ...(deadLetterArn === undefined ? {} : { deadLetterArn }),
    ...(onPartialBatchItemFailure === undefined ? {} : { onPartialBatchItemFailure }),
    parallelizationFactor:
      pipe.number(`${at}.ParallelizationFactor`) ?? PIPE_STREAM_DEFAULTS.parallelizationFactor,
  };
}
