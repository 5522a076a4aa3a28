import { Match } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { resource, template, topicId } from './stateful-template';

/** The alarm, to the topic, on the queue holding a message (a dead-letter queue that is not empty). */
export function expectNotEmptyAlarm(alarmId: string, queueId: string) {
  expect(resource(alarmId).Properties).toMatchObject({
    Namespace: 'AWS/SQS',
    MetricName: 'ApproximateNumberOfMessagesVisible',
    Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
    Threshold: 1,
    ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    AlarmActions: [{ Ref: topicId }],
    OKActions: [{ Ref: topicId }],
  });
}

/** A resource policy of this type, on the resource `target` names, that refuses requests without TLS. */
export function expectTlsOnly(policyType: string, target: Record<string, unknown>) {
  template.hasResourceProperties(policyType, {
    ...target,
    PolicyDocument: {
      Statement: Match.arrayWith([
        Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]),
    },
  });
}
