import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { TABLE_SCHEMA } from '../../functions/data/table-schema';
import * as channels from '../../functions/models/channels';
import { allChannels, type ChannelName } from '../../functions/models/channels';
import {
  BUCKET_LIFECYCLE,
  DLQ_RETENTION_DAYS,
  IMPORT_UPLOADS_PREFIX,
  PROOF_RETENTION_DAYS_DEFAULT,
  PROOFS_PREFIX,
  QUEUE_RETENTION_DAYS,
  REVISION_IMAGE_DAYS,
  REVISION_IMAGES_PREFIX,
} from '../../functions/shared/resources';
import { consumers } from '../../functions/workers/index';
import { IMPORT_QUEUE_MAX_AGE } from '../../lib/watches';
import { readDeployment } from '../../local/cloud/deployment';
import { expectNotEmptyAlarm, expectTlsOnly } from './stateful-assertions';
import { resource, resources, stateful, template, topicId } from './stateful-template';
import { type CfnResource, logicalIdOf, resourcesOf, synthesize } from './synth';

const table = resource(logicalIdOf(stateful, stateful.table));
const bucketId = logicalIdOf(stateful, stateful.bucket);

describe('table', () => {
  it('is the only table, retained on delete and replace', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
  });

  it('has the key schema of TABLE_SCHEMA', () => {
    expect(table.Properties?.KeySchema).toEqual([
      { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
    ]);
  });

  it.each(Object.entries(TABLE_SCHEMA.indexes))(
    'has GSI %s with its keys and projection ALL',
    (name, index) => {
      const gsis = table.Properties?.GlobalSecondaryIndexes as { IndexName: string }[];
      expect(gsis.find((g) => g.IndexName === name)).toEqual({
        IndexName: name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      });
      expect(gsis).toHaveLength(Object.keys(TABLE_SCHEMA.indexes).length);
    },
  );

  it('has exactly the GSIs of TABLE_SCHEMA (gsi1 and gsi2), with their key attributes defined', () => {
    const gsis = table.Properties?.GlobalSecondaryIndexes as { IndexName: string }[];
    expect(gsis.map((g) => g.IndexName).sort()).toEqual(Object.keys(TABLE_SCHEMA.indexes).sort());
    expect(Object.keys(TABLE_SCHEMA.indexes)).toEqual(expect.arrayContaining(['gsi1', 'gsi2']));
    const definitions = (table.Properties?.AttributeDefinitions ?? []) as { AttributeName: string }[];
    const attributes = definitions.map((a) => a.AttributeName);
    for (const index of Object.values(TABLE_SCHEMA.indexes)) {
      expect(attributes).toEqual(expect.arrayContaining([index.partitionKey, index.sortKey]));
    }
  });

  it('is on-demand with PITR and deletion protection', () => {
    expect(table.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
    });
  });

  it('streams NEW_IMAGE and expires items by the TTL attribute', () => {
    expect(table.Properties).toMatchObject({
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      TimeToLiveSpecification: { AttributeName: TABLE_SCHEMA.ttlAttribute, Enabled: true },
    });
  });

  it('exports its ARN under the fixed name the API stack imports, and outputs its name', () => {
    template.hasOutput('*', {
      Value: { 'Fn::GetAtt': [logicalIdOf(stateful, stateful.table), 'Arn'] },
      Export: { Name: stateful.tableExports.tableArnExportName },
    });
    template.hasOutput('TableName', { Value: { Ref: logicalIdOf(stateful, stateful.table) } });
  });
});

describe('bucket', () => {
  it('is the only bucket, private, encrypted and retained', () => {
    template.resourceCountIs('AWS::S3::Bucket', 1);
    expect(resource(bucketId).Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
    });
    expect(resource(bucketId).DeletionPolicy).toBe('Retain');
  });

  it('denies every request without TLS', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  const notified = [
    { channel: channels.imports, prefix: IMPORT_UPLOADS_PREFIX, sid: 'BucketNotifiesUploads' },
    { channel: channels.proofUploads, prefix: PROOFS_PREFIX, sid: 'BucketNotifiesProofUploads' },
  ];
  const queueArnOf = (channel: (typeof notified)[number]['channel']) => ({
    'Fn::GetAtt': [logicalIdOf(stateful, stateful.queueOf(channel).queue), 'Arn'],
  });

  it('with its own NotificationConfiguration: created objects under the uploads prefix to the imports queue, under the proofs prefix to the proof uploads queue', () => {
    expect(resource(bucketId).Properties?.NotificationConfiguration).toEqual({
      QueueConfigurations: notified.map(({ channel, prefix }) => ({
        Event: 's3:ObjectCreated:*',
        Filter: { S3Key: { Rules: [{ Name: 'prefix', Value: prefix }] } },
        Queue: queueArnOf(channel),
      })),
    });
    // No custom resource (and no Lambda of its own) sets notifications.
    expect(Object.values(resources).map((r) => r.Type)).not.toContain('Custom::S3BucketNotifications');
  });

  describe.each(notified)('notifies the $channel.name queue', ({ channel, sid }) => {
    const queueId = logicalIdOf(stateful, stateful.queueOf(channel).queue);
    const [policyId, policy] = Object.entries(resources).find(
      ([, candidate]) =>
        candidate.Type === 'AWS::SQS::QueuePolicy' &&
        JSON.stringify(candidate.Properties?.Queues) === JSON.stringify([{ Ref: queueId }]),
    ) as [string, CfnResource];

    it('which S3 may send to from this bucket in this account only', () => {
      const { PolicyDocument } = policy.Properties as {
        PolicyDocument: { Statement: Record<string, unknown>[] };
      };
      const statements = PolicyDocument.Statement;
      const fromS3 = statements.filter((statement) => JSON.stringify(statement.Principal).includes('s3.'));
      expect(fromS3).toEqual([
        {
          Sid: sid,
          Effect: 'Allow',
          Principal: { Service: 's3.amazonaws.com' },
          Action: 'sqs:SendMessage',
          Resource: queueArnOf(channel),
          Condition: {
            ArnLike: {
              'aws:SourceArn': {
                'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:s3:::*${bucketId.toLowerCase()}*`]],
              },
            },
            StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          },
        },
      ]);
    });

    it('and the bucket waits for that policy: S3 validates the destination when saving the configuration', () => {
      expect((resource(bucketId) as { DependsOn?: string[] }).DependsOn).toContain(policyId);
      // The policy names the bucket without referring to it, or the two would wait for each other.
      expect(JSON.stringify(policy)).not.toContain(`"${bucketId}"`);
    });
  });

  describe('with a 64-character stackPrefix, whose bucket name CloudFormation would cut', () => {
    const stackPrefix = 'DeliveryRoutesForTheNorthernWarehousesTheirDriversAndCustomers01';
    const long = synthesize({ stackPrefix });
    const longResources = resourcesOf(long.statefulTemplate);
    const longBucketId = logicalIdOf(long.stateful, long.stateful.bucket);
    // The local runtime resolves the templates as CloudFormation would, with a stack id of its own.
    const deployment = readDeployment(long.assembly.directory, {
      namePrefix: 'long',
      awsEndpoint: 'http://127.0.0.1',
    });
    const [bucket] = deployment.buckets;

    it('is a prefix of 64 characters, and the generated name would pass 63', () => {
      expect(stackPrefix).toHaveLength(64);
      expect(`${long.stateful.stackName}-${longBucketId}-`.length + 12).toBeGreaterThan(63);
    });

    it('gives the bucket a name of its own that S3 takes: the stack name’s start and the stack’s UUID', () => {
      expect(longResources[longBucketId]?.Properties?.BucketName).toBeDefined();
      const name = bucket?.name ?? '';
      expect(name.length).toBeLessThanOrEqual(63);
      expect(name).toMatch(/^[a-z0-9][a-z0-9-]*[a-z0-9]$/);
      expect(name).toMatch(
        /^deliveryroutesforthenorthe-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
    });

    it.each(notified)(
      'lets S3 notify the $channel.name queue from that bucket and no other',
      ({ channel, sid }) => {
        const queue = deployment.queues.find(
          (candidate) =>
            candidate.logicalId === logicalIdOf(long.stateful, long.stateful.queueOf(channel).queue),
        );
        const policy = deployment.queuePolicies.find((candidate) =>
          candidate.queueArns.includes(queue?.arn ?? ''),
        );
        const statement = policy?.document.Statement.find((candidate) => candidate.Sid === sid);
        expect(statement?.Condition).toEqual({
          ArnLike: { 'aws:SourceArn': `arn:aws:s3:::${bucket?.name}` },
          StringEquals: { 'aws:SourceAccount': deployment.accountId },
        });
      },
    );

    it('keeps the generated name of a bucket whose name fits (renaming a bucket replaces it)', () => {
      expect(resource(bucketId).Properties?.BucketName).toBeUndefined();
    });
  });

  const lifecycleRules = (bucket: CfnResource) =>
    (bucket.Properties as { LifecycleConfiguration: { Rules: Record<string, unknown>[] } })
      .LifecycleConfiguration.Rules;

  it(`keeps proofs and delivery notes ${PROOF_RETENTION_DAYS_DEFAULT} days unless the deployment says otherwise`, () => {
    expect(lifecycleRules(resource(bucketId))).toContainEqual(
      expect.objectContaining({
        Prefix: PROOFS_PREFIX,
        ExpirationInDays: PROOF_RETENTION_DAYS_DEFAULT,
        Status: 'Enabled',
      }),
    );
    const longer = synthesize({ proofRetentionDays: 2555 });
    const longerBucket = resourcesOf(longer.statefulTemplate)[
      logicalIdOf(longer.stateful, longer.stateful.bucket)
    ];
    expect(lifecycleRules(longerBucket as CfnResource)).toContainEqual(
      expect.objectContaining({ Prefix: PROOFS_PREFIX, ExpirationInDays: 2555, Status: 'Enabled' }),
    );
  });

  it.each(BUCKET_LIFECYCLE)(
    'expires $prefix after $expireAfterDays day(s)',
    ({ prefix, expireAfterDays }) => {
      const { LifecycleConfiguration } = resource(bucketId).Properties ?? {};
      const rules = (LifecycleConfiguration as { Rules: Record<string, unknown>[] }).Rules;
      expect(rules).toContainEqual(
        expect.objectContaining({ Prefix: prefix, ExpirationInDays: expireAfterDays, Status: 'Enabled' }),
      );
    },
  );

  it('outputs its name', () => {
    template.hasOutput('BucketName', { Value: { Ref: bucketId } });
  });

  it('exports its ARN under the fixed name the API stack imports', () => {
    template.hasOutput('*', {
      Value: { 'Fn::GetAtt': [bucketId, 'Arn'] },
      Export: { Name: stateful.exports.bucket.bucketArnExportName },
    });
  });
});

describe('queues', () => {
  it("has a queue and a DLQ per channel, the two pipes' DLQs and no other queue", () => {
    template.resourceCountIs('AWS::SQS::Queue', allChannels.length * 2 + 2);
  });

  it('states every queue’s retention, none left to SQS’s default: a channel’s queue QUEUE_RETENTION_DAYS', () => {
    const queues = Object.values(resources).filter((candidate) => candidate.Type === 'AWS::SQS::Queue');
    for (const queue of queues) expect(queue.Properties?.MessageRetentionPeriod).toEqual(expect.any(Number));
    for (const channel of allChannels)
      expect(resource(logicalIdOf(stateful, stateful.queueOf(channel).queue)).Properties).toMatchObject({
        MessageRetentionPeriod: QUEUE_RETENTION_DAYS * 24 * 3600,
      });
  });

  it('keeps a revision’s before image longer than any message that can roll the revision back lives', () => {
    const imageDays = BUCKET_LIFECYCLE.find(
      (rule) => rule.prefix === REVISION_IMAGES_PREFIX,
    )?.expireAfterDays;
    expect(imageDays).toBe(REVISION_IMAGE_DAYS);
    const imports = [channels.imports, channels.importDeadlines].map((channel) => stateful.queueOf(channel));
    for (const { queue, deadLetterQueue } of imports)
      for (const each of [queue, deadLetterQueue]) {
        const seconds = resource(logicalIdOf(stateful, each)).Properties?.MessageRetentionPeriod as number;
        expect(seconds).toBeLessThan((imageDays ?? 0) * 24 * 3600);
      }
  });

  it('makes the FIFO channels FIFO queues with FIFO DLQs, in high-throughput mode, and the others standard', () => {
    for (const channel of allChannels) {
      const { queue, deadLetterQueue } = stateful.queueOf(channel);
      const queueProps = resource(logicalIdOf(stateful, queue)).Properties;
      const dlqProps = resource(logicalIdOf(stateful, deadLetterQueue)).Properties;
      if (channel.fifo) {
        expect(queueProps).toMatchObject({
          FifoQueue: true,
          DeduplicationScope: 'messageGroup',
          FifoThroughputLimit: 'perMessageGroupId',
        });
        expect(dlqProps?.FifoQueue).toBe(true);
      } else {
        expect(queueProps?.FifoQueue).toBeUndefined();
        expect(dlqProps?.FifoQueue).toBeUndefined();
      }
    }
    expect(channels.feed.fifo).toBe(true);
  });

  it.each(allChannels)('$name redrives to its own DLQ after maxReceiveCount receives', (channel) => {
    const { queue, deadLetterQueue } = stateful.queueOf(channel);
    expect(resource(logicalIdOf(stateful, queue)).Properties).toMatchObject({
      VisibilityTimeout: channel.visibilityTimeoutSeconds,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(stateful, deadLetterQueue), 'Arn'] },
        maxReceiveCount: channel.maxReceiveCount,
      },
    });
  });

  it.each(allChannels)('$name exports its ARN and URL under fixed names', (channel) => {
    const id = logicalIdOf(stateful, stateful.queueOf(channel).queue);
    const exported = stateful.exports.queues[channel.name as ChannelName];
    template.hasOutput('*', {
      Value: { 'Fn::GetAtt': [id, 'Arn'] },
      Export: { Name: exported.queueArnExportName },
    });
    template.hasOutput('*', { Value: { Ref: id }, Export: { Name: exported.queueUrlExportName } });
  });

  const consumedDlqs = allChannels.filter((channel) => channel.consumedDeadLetters);

  it.each(allChannels.filter((channel) => !consumedDlqs.includes(channel)))(
    '$name DLQ keeps messages for DLQ_RETENTION_DAYS and raises an alarm when not empty',
    (channel) => {
      const { deadLetterQueue, deadLetterAlarm } = stateful.queueOf(channel);
      const dlqId = logicalIdOf(stateful, deadLetterQueue);
      expect(resource(dlqId).Properties?.MessageRetentionPeriod).toBe(DLQ_RETENTION_DAYS * 24 * 3600);
      expectNotEmptyAlarm(logicalIdOf(stateful, deadLetterAlarm), dlqId);
    },
  );

  it.each(consumedDlqs)(
    '$name DLQ, which a consumer empties, keeps messages for DLQ_RETENTION_DAYS, keeps a received one invisible as configured, and raises an alarm on any message received from it',
    (channel) => {
      const { deadLetterQueue, deadLetterAlarm } = stateful.queueOf(channel);
      const dlqId = logicalIdOf(stateful, deadLetterQueue);
      expect(resource(dlqId).Properties).toMatchObject({
        MessageRetentionPeriod: DLQ_RETENTION_DAYS * 24 * 3600,
        VisibilityTimeout: channel.consumedDeadLetters?.visibilityTimeoutSeconds,
      });
      expect(resource(logicalIdOf(stateful, deadLetterAlarm)).Properties).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'NumberOfMessagesReceived',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [{ Ref: topicId }],
        OKActions: [{ Ref: topicId }],
      });
    },
  );

  it('gives consumedDeadLetters to exactly the queues whose DLQ a consumer reads (else nothing would watch its depth)', () => {
    const read = consumers.filter((c) => c.deadLetters).map((c) => c.queue);
    expect(new Set(consumedDlqs)).toEqual(new Set(read));
    expect(consumedDlqs).toContain(channels.imports);
  });

  it("alarms to the topic when the import queue's oldest message has waited IMPORT_QUEUE_MAX_AGE", () => {
    const importsQueue = logicalIdOf(stateful, stateful.queueOf(channels.imports).queue);
    expect(resource(logicalIdOf(stateful, stateful.importBacklogAlarm)).Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [importsQueue, 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: IMPORT_QUEUE_MAX_AGE.toSeconds(),
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: topicId }],
    });
  });

  it.each(allChannels)('$name and its DLQ are SQS-encrypted and refuse requests without TLS', (channel) => {
    const { queue: channelQueue, deadLetterQueue } = stateful.queueOf(channel);
    for (const queue of [channelQueue, deadLetterQueue]) {
      const id = logicalIdOf(stateful, queue);
      expect(resource(id).Properties?.SqsManagedSseEnabled).toBe(true);
      expectTlsOnly('AWS::SQS::QueuePolicy', { Queues: [{ Ref: id }] });
    }
  });
});

describe('webhook secrets key', () => {
  const keyId = logicalIdOf(stateful, stateful.webhookSecretsKey);
  const key = resource(keyId);

  it('is a customer managed symmetric key, rotated by KMS and retained on delete and replace', () => {
    template.resourceCountIs('AWS::KMS::Key', 3); // this one, the alarm topic's and the message outcomes topic's
    expect(key.Type).toBe('AWS::KMS::Key');
    expect(key.Properties?.EnableKeyRotation).toBe(true);
    expect(key.Properties?.KeySpec ?? 'SYMMETRIC_DEFAULT').toBe('SYMMETRIC_DEFAULT');
    expect(key.Properties?.KeyUsage ?? 'ENCRYPT_DECRYPT').toBe('ENCRYPT_DECRYPT');
    expect(key.DeletionPolicy).toBe('Retain');
    expect(key.UpdateReplacePolicy).toBe('Retain');
  });

  it("keeps CDK's default key policy: the account's IAM policies decide who may use it, and no one else is named", () => {
    const policy = key.Properties?.KeyPolicy as { Statement: Record<string, unknown>[] } | undefined;
    const statements = policy?.Statement;
    expect(statements).toEqual([
      {
        Action: 'kms:*',
        Effect: 'Allow',
        Principal: {
          AWS: {
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root'],
            ],
          },
        },
        Resource: '*',
      },
    ]);
  });

  it('exports its ARN under the fixed name the API stack imports', () => {
    template.hasOutput('*', {
      Value: { 'Fn::GetAtt': [keyId, 'Arn'] },
      Export: { Name: stateful.exports.webhookSecretsKeyArnExportName },
    });
  });
});
