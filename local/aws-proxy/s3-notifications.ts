/**
 * S3 event notifications, as S3 sends them: when an object is created (PutObject, a presigned PUT included,
 * CopyObject, CompleteMultipartUpload) in a bucket whose template NotificationConfiguration has a queue
 * configuration matching the event and the key, the queue gets the S3 event message (event structure 2.1).
 *
 * Like S3, the configuration is validated when it is set up: every destination must be a queue of the
 * deployment whose queue policy lets `s3.amazonaws.com` send from the bucket (`aws:SourceArn`,
 * `aws:SourceAccount`). A missing or narrower policy fails the local deployment as it fails CloudFormation.
 * Topic, Lambda and EventBridge destinations are refused rather than silently not delivered.
 * Not reproduced: the `s3:TestEvent` S3 sends once when the configuration is saved (tests that count the
 * queue's messages would see it on every run).
 */
import { randomBytes } from 'node:crypto';
import type { BucketSpec, Deployment, PolicyDocument, QueueSpec } from '../cloud/model';
import { servicePrincipalDecision, validatePolicy } from '../iam/policy';
import { EmulatorQueues } from './emulator-queues';
import type { Upstream } from './upstream';

export type NotificationSetup = Pick<
  Deployment,
  'accountId' | 'region' | 'buckets' | 'queues' | 'queuePolicies'
>;

/** What S3 names each object-creating operation in its events. */
const CREATED_EVENT: Record<string, string> = {
  PutObject: 'ObjectCreated:Put',
  CopyObject: 'ObjectCreated:Copy',
  CompleteMultipartUpload: 'ObjectCreated:CompleteMultipartUpload',
};

interface QueueRoute {
  configurationId: string;
  /** `s3:ObjectCreated:*`, `s3:ObjectCreated:Put`, ... */
  events: string[];
  prefix: string;
  suffix: string;
  queue: QueueSpec;
}

interface NotifiedBucket {
  bucket: BucketSpec;
  routes: QueueRoute[];
}

export class DestinationValidationError extends Error {
  override name = 'DestinationValidationError';
}

export class S3Notifications {
  private readonly buckets = new Map<string, NotifiedBucket>();
  private region = '';

  private readonly queues: EmulatorQueues;

  constructor(private readonly fauxqs: Upstream) {
    this.queues = new EmulatorQueues(fauxqs);
  }

  /** Takes the deployment's notification configurations, refusing any S3 could not validate. */
  configure(setup: NotificationSetup): void {
    this.buckets.clear();
    this.region = setup.region;
    for (const bucket of setup.buckets) {
      const configuration = bucket.notificationConfiguration;
      if (!configuration) continue;
      const unsupported = Object.keys(configuration).filter((kind) => kind !== 'QueueConfigurations');
      if (unsupported.length > 0) {
        throw new DestinationValidationError(
          `bucket ${bucket.logicalId}: the local runtime delivers queue notifications only, not ${unsupported.join(', ')}`,
        );
      }
      const routes = asArray(configuration.QueueConfigurations).map((entry, index) =>
        queueRoute(bucket, entry, index, setup),
      );
      this.buckets.set(bucket.name, { bucket, routes });
    }
  }

  /**
   * Sends the ObjectCreated event of `operation` on bucket/key to every matching queue; errors are logged. The
   * proxy awaits it before it answers the request that created the object, so an object a client was told is
   * stored has had its notification queued: a run killed in between loses neither (S3's own delivery is
   * durable too). Called when the object is stored: that is the event's `eventTime`.
   */
  async objectCreated(
    operation: string,
    bucketName: string,
    key: string,
    principalArn: string,
  ): Promise<void> {
    const createdAt = new Date();
    const eventName = CREATED_EVENT[operation];
    const notified = this.buckets.get(bucketName);
    if (!eventName || !notified) return;
    const routes = notified.routes.filter(
      (route) =>
        route.events.some((event) => eventMatches(event, `s3:${eventName}`)) &&
        key.startsWith(route.prefix) &&
        key.endsWith(route.suffix),
    );
    if (routes.length === 0) return;
    await this.deliver(notified.bucket, key, eventName, principalArn, createdAt, routes).catch(
      (error: unknown) => {
        console.error(`local S3 notification for ${bucketName}/${key} failed`, error);
      },
    );
  }

  private async deliver(
    bucket: BucketSpec,
    key: string,
    eventName: string,
    principalArn: string,
    createdAt: Date,
    routes: QueueRoute[],
  ): Promise<void> {
    const head = await this.fauxqs.send('HEAD', `/${bucket.name}/${encodePath(key)}`, {});
    head.resume();
    if (head.statusCode !== 200) throw new Error(`HEAD of the new object answered ${head.statusCode}`);
    const size = Number(head.headers['content-length'] ?? 0);
    const eTag = String(head.headers.etag ?? '').replace(/"/g, '');
    for (const route of routes) {
      const message = {
        Records: [
          {
            eventVersion: '2.1',
            eventSource: 'aws:s3',
            awsRegion: this.region,
            // When S3 received the object (ISO 8601 in UTC with milliseconds, as S3 writes it), not when the
            // message is sent.
            eventTime: createdAt.toISOString(),
            eventName,
            userIdentity: { principalId: `AWS:${principalArn}` },
            requestParameters: { sourceIPAddress: '127.0.0.1' },
            responseElements: {
              'x-amz-request-id': randomBytes(8).toString('hex').toUpperCase(),
              'x-amz-id-2': randomBytes(32).toString('base64'),
            },
            s3: {
              s3SchemaVersion: '1.0',
              configurationId: route.configurationId,
              bucket: {
                name: bucket.name,
                ownerIdentity: { principalId: 'A3NL1KOZZKExample' },
                arn: bucket.arn,
              },
              object: {
                key: eventKey(key),
                size,
                eTag,
                sequencer: Date.now().toString(16).toUpperCase().padStart(16, '0'),
              },
            },
          },
        ],
      };
      await this.queues.send(route.queue, JSON.stringify(message));
    }
  }
}

/**
 * One QueueConfigurations entry, its queue found and its permission to receive from S3 checked. Entries come
 * in CloudFormation's shape (`Event`, `Queue`, `Filter.S3Key.Rules`) or, from CDK's notification custom
 * resource, in the S3 API's (`Events`, `QueueArn`, `Filter.Key.FilterRules`).
 */
function queueRoute(bucket: BucketSpec, entry: unknown, index: number, setup: NotificationSetup): QueueRoute {
  const where = `bucket ${bucket.logicalId} QueueConfigurations[${index}]`;
  const { Id, Event, Events, Queue, QueueArn, Filter } = (entry ?? {}) as Record<string, unknown>;
  const queueArn = Queue ?? QueueArn;
  const queue = setup.queues.find((candidate) => candidate.arn === queueArn);
  if (!queue) {
    throw new DestinationValidationError(`${where}: ${String(queueArn)} is not a queue of the deployment`);
  }
  const policies: PolicyDocument[] = setup.queuePolicies
    .filter((policy) => policy.queueArns.includes(queue.arn))
    .map((policy) => policy.document);
  for (const policy of policies) validatePolicy(policy);
  const decision = servicePrincipalDecision(
    policies,
    's3.amazonaws.com',
    { action: 'sqs:SendMessage', resource: queue.arn },
    { 'aws:SourceArn': bucket.arn, 'aws:SourceAccount': setup.accountId, 'aws:SecureTransport': 'true' },
  );
  if (decision !== 'Allow') {
    throw new DestinationValidationError(
      `${where}: Unable to validate the following destination configurations: the policy of queue ${queue.name} does not let s3.amazonaws.com send messages from ${bucket.arn} (${decision})`,
    );
  }
  const filter = Filter as { S3Key?: { Rules?: unknown }; Key?: { FilterRules?: unknown } } | undefined;
  const rules = asArray(filter?.S3Key?.Rules ?? filter?.Key?.FilterRules) as {
    Name?: string;
    Value?: string;
  }[];
  const rule = (name: string) => rules.find((r) => r.Name?.toLowerCase() === name)?.Value ?? '';
  const events = (Events !== undefined ? asArray(Events) : [Event]).map(String);
  return {
    configurationId: typeof Id === 'string' ? Id : `${bucket.logicalId}-${index}`,
    events,
    prefix: rule('prefix'),
    suffix: rule('suffix'),
    queue,
  };
}

function asArray(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** `s3:ObjectCreated:*` matches every ObjectCreated event. */
function eventMatches(pattern: string, event: string): boolean {
  return pattern.endsWith(':*') ? event.startsWith(pattern.slice(0, -1)) : pattern === event;
}

/** Keys in S3 events are URL-encoded as form values: spaces become `+`, `/` stays. */
function eventKey(key: string): string {
  return encodeURIComponent(key).replace(/%2F/g, '/').replace(/%20/g, '+');
}

function encodePath(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}
