import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import * as events from '../../functions/data/events';
import * as channels from '../../functions/models/channels';
import { DLQ_RETENTION_DAYS } from '../../functions/shared/resources';
import { EVENT_PIPE_BATCH_SIZE, EVENT_PIPE_RETRIES } from '../../lib/constructs/event-pipe';
import { expectNotEmptyAlarm, expectTlsOnly } from './stateful-assertions';
import { resource, resources, stateful, template, topicId } from './stateful-template';
import { type CfnResource, logicalIdOf, resourcesOf, synthesize } from './synth';

// The stateful stack's topics and event pipes; its table, bucket, queues and webhook secrets key are in
// stateful-stack.test.ts. Each file synthesizes the app once (stateful-template.ts).

describe('alarm topic', () => {
  it('is one of two topics (the other: message outcomes), encrypted with a rotating key that CloudWatch alarms may use, TLS only', () => {
    template.resourceCountIs('AWS::SNS::Topic', 2);
    const keyRef = resource(topicId).Properties?.KmsMasterKeyId as { 'Fn::GetAtt': [string, string] };
    const key = resource(keyRef['Fn::GetAtt'][0]);
    expect(key.Type).toBe('AWS::KMS::Key');
    expect(key.Properties?.EnableKeyRotation).toBe(true);
    const statements = JSON.stringify(key.Properties?.KeyPolicy);
    expect(statements).toContain('cloudwatch.amazonaws.com');
    expectTlsOnly('AWS::SNS::TopicPolicy', { Topics: [{ Ref: topicId }] });
  });

  it('lets CloudWatch alarms of this account and Region publish: its policy replaces SNS’s default one', () => {
    const policies = Object.values(resources).filter(
      (r) =>
        r.Type === 'AWS::SNS::TopicPolicy' &&
        JSON.stringify(r.Properties?.Topics) === JSON.stringify([{ Ref: topicId }]),
    );
    expect(policies).toHaveLength(1);
    const document = policies[0]?.Properties?.PolicyDocument as { Statement: Record<string, unknown>[] };
    const statements = document.Statement;
    const allowed = statements.filter((statement) => statement.Effect === 'Allow');
    expect(allowed).toEqual([
      {
        Sid: 'CloudWatchAlarmsPublish',
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: topicId },
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: {
            'aws:SourceArn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':cloudwatch:',
                  { Ref: 'AWS::Region' },
                  ':',
                  { Ref: 'AWS::AccountId' },
                  ':alarm:*',
                ],
              ],
            },
          },
        },
      },
    ]);
    // And the TLS-only refusal stays, for every principal.
    expect(statements.filter((statement) => statement.Effect === 'Deny')).toEqual([
      expect.objectContaining({
        Principal: '*',
        Action: 'sns:Publish',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    ]);
  });

  it('has a key CloudWatch may encrypt the notifications under', () => {
    const keyRef = resource(topicId).Properties?.KmsMasterKeyId as { 'Fn::GetAtt': [string, string] };
    const keyPolicy = resource(keyRef['Fn::GetAtt'][0]).Properties?.KeyPolicy as {
      Statement: Record<string, unknown>[];
    };
    expect(keyPolicy.Statement).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        Resource: '*',
      }),
    );
  });

  const alarmSubscriptions = (t: typeof template) =>
    Object.values(resourcesOf(t)).filter(
      (r) =>
        r.Type === 'AWS::SNS::Subscription' &&
        JSON.stringify(r.Properties?.TopicArn) === JSON.stringify({ Ref: topicId }),
    );

  it('has no subscription unless alarmEmail is given', () => {
    expect(alarmSubscriptions(template)).toHaveLength(0);
  });

  it('subscribes alarmEmail by email', () => {
    const { statefulTemplate } = synthesize({ alarmEmail: 'ops@example.com' });
    expect(alarmSubscriptions(statefulTemplate)).toHaveLength(1);
    statefulTemplate.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  it('exports its ARN under the fixed name the API stack imports, and outputs it', () => {
    template.hasOutput('*', {
      Value: { Ref: topicId },
      Export: { Name: stateful.exports.alarmTopicArnExportName },
    });
    template.hasOutput('AlarmTopicArn', { Value: { Ref: topicId } });
  });
});

describe('pipes', () => {
  it('are two, the most readers DynamoDB advises per stream shard: to the events queue and to the feed queue', () => {
    const pipes = Object.values(resources).filter((r) => r.Type === 'AWS::Pipes::Pipe');
    expect(pipes.map((pipe) => pipe.Properties?.Target)).toEqual([
      { 'Fn::GetAtt': [logicalIdOf(stateful, stateful.queueOf(channels.events).queue), 'Arn'] },
      { 'Fn::GetAtt': [logicalIdOf(stateful, stateful.queueOf(channels.feed).queue), 'Arn'] },
    ]);
  });
});

describe.each([
  { name: 'event pipe', of: () => stateful.eventPipe, channel: channels.events, fifoIds: undefined },
  {
    name: 'feed pipe',
    of: () => stateful.feedPipe,
    channel: channels.feed,
    fifoIds: events.EVENT_RECORD_FIFO_IDS,
  },
])('$name', ({ of, channel, fifoIds }) => {
  const targetQueue = logicalIdOf(stateful, stateful.queueOf(channel).queue);
  const pipeDlq = logicalIdOf(stateful, of().deadLetterQueue);
  const tableId = logicalIdOf(stateful, stateful.table);
  const [pipeId, pipe] = Object.entries(resources).find(
    ([, r]) =>
      r.Type === 'AWS::Pipes::Pipe' && JSON.stringify(r.Properties?.Target).includes(`"${targetQueue}"`),
  ) as [string, CfnResource & { DependsOn?: string[] }];
  const pipeProps = () =>
    pipe?.Properties as Record<string, unknown> & {
      RoleArn: { 'Fn::GetAtt': [string, string] };
      SourceParameters: {
        FilterCriteria: { Filters: { Pattern: string }[] };
        DynamoDBStreamParameters: Record<string, unknown>;
      };
      TargetParameters?: unknown;
    };

  it(`carries only new event items from the table stream to the ${channel.name} queue, in batches SQS takes whole`, () => {
    expect(pipeId).toBeDefined();
    const props = pipeProps();
    expect(props.Source).toEqual({ 'Fn::GetAtt': [tableId, 'StreamArn'] });
    expect(props.Target).toEqual({ 'Fn::GetAtt': [targetQueue, 'Arn'] });
    const patterns = props.SourceParameters.FilterCriteria.Filters.map((f) => JSON.parse(f.Pattern));
    expect(patterns).toEqual([events.EVENT_RECORD_PATTERN]);
    expect(props.SourceParameters.DynamoDBStreamParameters).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: EVENT_PIPE_BATCH_SIZE,
    });
    // SendMessageBatch takes at most 10 messages and 1 MiB: a batch of the largest event records fits whole.
    // No batching window, so an event alone is not held back.
    expect(EVENT_PIPE_BATCH_SIZE).toBeGreaterThanOrEqual(1);
    expect(EVENT_PIPE_BATCH_SIZE).toBeLessThanOrEqual(10);
    expect(EVENT_PIPE_BATCH_SIZE * events.MAX_EVENT_RECORD_BYTES).toBeLessThanOrEqual(1_048_576);
    expect(props.SourceParameters.DynamoDBStreamParameters.MaximumBatchingWindowInSeconds).toBeUndefined();
  });

  it(
    fifoIds
      ? "groups each account's events (FIFO message group: the event's account; deduplication id: the event's)"
      : 'sends to a standard queue, without FIFO parameters',
    () => {
      expect(pipeProps().TargetParameters).toEqual(
        fifoIds
          ? {
              SqsQueueParameters: {
                MessageGroupId: '$.dynamodb.NewImage.account_id.S',
                MessageDeduplicationId: '$.dynamodb.NewImage.event_id.S',
              },
            }
          : undefined,
      );
    },
  );

  it('gives a record up to its own DLQ after a few retries or 6 hours, not after 24 hours of stalling its shard', () => {
    const stream = pipeProps().SourceParameters.DynamoDBStreamParameters;
    expect(stream).toMatchObject({
      MaximumRetryAttempts: EVENT_PIPE_RETRIES.maximumRetryAttempts,
      MaximumRecordAgeInSeconds: EVENT_PIPE_RETRIES.maximumRecordAge.toSeconds(),
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': [pipeDlq, 'Arn'] } },
    });
    expect(stream.MaximumRetryAttempts).toBeGreaterThanOrEqual(0);
    expect(stream.MaximumRetryAttempts).toBeLessThanOrEqual(10);
    // Under the stream's 24 hours, with time left to read the record back after the alarm.
    expect(stream.MaximumRecordAgeInSeconds).toBeGreaterThanOrEqual(3600);
    expect(stream.MaximumRecordAgeInSeconds).toBeLessThanOrEqual(12 * 3600);
    // Not the target queue's DLQ: its messages describe stream batches, they are not events.
    expect(pipeDlq).not.toBe(logicalIdOf(stateful, stateful.queueOf(channel).deadLetterQueue));
  });

  it('has a DLQ like the others: SQS-encrypted, TLS only, 14 days, alarming to the topic when not empty', () => {
    expect(resource(pipeDlq).Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: DLQ_RETENTION_DAYS * 24 * 3600,
    });
    expectTlsOnly('AWS::SQS::QueuePolicy', { Queues: [{ Ref: pipeDlq }] });
    expectNotEmptyAlarm(logicalIdOf(stateful, of().deadLetterAlarm), pipeDlq);
  });

  it('runs as a role only EventBridge Pipes can assume', () => {
    const role = resource(pipeProps().RoleArn['Fn::GetAtt'][0]);
    expect(JSON.stringify(role.Properties?.AssumeRolePolicyDocument)).toContain('pipes.amazonaws.com');
    expect(JSON.stringify(role.Properties?.AssumeRolePolicyDocument)).toContain('aws:SourceAccount');
  });

  it('may only send to its DLQ (sqs:SendMessage, what Pipes needs for a stream DLQ)', () => {
    const roleId = pipeProps().RoleArn['Fn::GetAtt'][0];
    const statements = Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties?.Roles).includes(roleId))
      .flatMap((r) => {
        const document = r.Properties?.PolicyDocument as { Statement: Record<string, unknown>[] } | undefined;
        return document?.Statement ?? [];
      });
    const onDlq = statements.filter((statement) =>
      JSON.stringify(statement.Resource).includes(`"${pipeDlq}"`),
    );
    expect(onDlq).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: { 'Fn::GetAtt': [pipeDlq, 'Arn'] },
      }),
    ]);
  });

  it("is created after its role's policy: Pipes checks the permissions when it creates the pipe", () => {
    const roleId = pipeProps().RoleArn['Fn::GetAtt'][0];
    const policyIds = Object.entries(resources)
      .filter(([, r]) => r.Type === 'AWS::IAM::Policy')
      .filter(([, r]) => JSON.stringify(r.Properties?.Roles).includes(String(roleId)))
      .map(([id]) => id);
    expect(policyIds).toHaveLength(1);
    expect(pipe?.DependsOn).toEqual(expect.arrayContaining([...policyIds, roleId]));
  });
});

describe('the message outcomes topic', () => {
  const outcomesTopicId = logicalIdOf(stateful, stateful.messageOutcomes.topic);
  const queueId = logicalIdOf(stateful, stateful.queueOf(channels.messageOutcomes).queue);
  const topicRef = { Ref: outcomesTopicId };

  it('is encrypted with a key of its own and subscribed by the message outcomes queue, in SNS’s envelope', () => {
    expect(resource(outcomesTopicId).Properties?.KmsMasterKeyId).toBeDefined();
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      TopicArn: topicRef,
      Endpoint: { 'Fn::GetAtt': [queueId, 'Arn'] },
    });
    const subscriptions = Object.values(resources).filter((r) => r.Type === 'AWS::SNS::Subscription');
    const toQueue = subscriptions.filter(
      (r) => JSON.stringify(r.Properties?.TopicArn) === JSON.stringify(topicRef),
    );
    expect(toQueue).toHaveLength(1);
    expect(toQueue[0]?.Properties?.RawMessageDelivery).toBeUndefined();
  });

  it('may be published to by SES and End User Messaging of this account only; its queue takes only the topic’s messages from SNS', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [topicRef],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'MessagingServicesPublish',
            Effect: 'Allow',
            Principal: { Service: ['ses.amazonaws.com', 'sms-voice.amazonaws.com'] },
            Action: 'sns:Publish',
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'sqs:SendMessage',
            Principal: { Service: 'sns.amazonaws.com' },
            Condition: { ArnEquals: { 'aws:SourceArn': topicRef } },
          }),
        ]),
      },
    });
  });

  it('gets no SES event destination without a configuration set, and one for the outcome events with it', () => {
    template.resourceCountIs('AWS::SES::ConfigurationSetEventDestination', 0);
    const withSet = synthesize({
      messageSenders: {
        email: { identity: 'example.com', from: 'a@example.com', configurationSet: 'customer-messages' },
      },
    });
    withSet.statefulTemplate.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
      ConfigurationSetName: 'customer-messages',
      EventDestination: {
        Enabled: true,
        MatchingEventTypes: ['delivery', 'bounce', 'complaint', 'reject', 'renderingFailure'],
        SnsDestination: {
          TopicARN: { Ref: logicalIdOf(withSet.stateful, withSet.stateful.messageOutcomes.topic) },
        },
      },
    });
  });
});
