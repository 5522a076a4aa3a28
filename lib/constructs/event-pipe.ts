import { Stack, Validations } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_RECORD_PATTERN } from '../../functions/data/event-records';

export interface EventPipeProps {
  readonly table: Table;
  readonly target: Queue;
  /** Where the pipe puts stream records it could not deliver (the events queue's DLQ). */
  readonly deadLetterQueue: Queue;
}

/**
 * The transactional outbox's relay: an EventBridge Pipe from the table's stream to the events queue that
 * lets only new event items through (no code of ours in between, so nothing to lose an event).
 */
export class EventPipe extends Construct {
  constructor(scope: Construct, id: string, props: EventPipeProps) {
    super(scope, id);
    const { tableStreamArn } = props.table;
    if (!tableStreamArn) throw new Error('the table needs a stream for the event pipe');
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('pipes.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'EventBridge Pipe: reads the table stream, sends event records to the events queue',
    });
    props.table.grantStreamRead(role);
    props.target.grantSendMessages(role);
    props.deadLetterQueue.grantSendMessages(role);
    const pipe = new CfnPipe(this, 'Pipe', {
      roleArn: role.roleArn,
      description: 'New EVENT# items of the table -> events queue (one message per stream record)',
      source: tableStreamArn,
      sourceParameters: {
        dynamoDbStreamParameters: {
          startingPosition: 'TRIM_HORIZON',
          batchSize: 1,
          deadLetterConfig: { arn: props.deadLetterQueue.queueArn },
        },
        filterCriteria: { filters: [{ pattern: JSON.stringify(EVENT_RECORD_PATTERN) }] },
      },
      target: props.target.queueArn,
    });
    // Pipes checks the role's permissions when it creates the pipe: the role's policy must exist by then.
    pipe.node.addDependency(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'dynamodb:ListStreams (part of the stream-read grant) supports no resource-level permissions.',
    });
  }
}
