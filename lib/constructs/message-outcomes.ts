import { CfnOutput, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { CfnConfigurationSetEventDestination } from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface MessageOutcomesProps {
  /** The message outcomes queue (channels.messageOutcomes), subscribed to the topic. */
  readonly queue: IQueue;
  /**
   * The SES configuration set customer emails are sent with (`notifyEmailConfigurationSet`): given, the stack
   * adds an event destination to it that publishes their outcomes to the topic.
   */
  readonly emailConfigurationSet?: string;
}

/** The SES events that end a message (docs/api.md, Customer notifications). */
export const SES_OUTCOME_EVENTS = ['delivery', 'bounce', 'complaint', 'reject', 'renderingFailure'];

/**
 * The topic SES event publishing, End User Messaging SMS event destinations and two-way SMS publish the
 * outcomes of customer messages to, and its subscription by the message outcomes queue (SNS's envelope, not raw
 * delivery: SES's first message on a new destination is plain text). Encrypted with a key of its own that SES
 * and End User Messaging may use; only they may publish, for this account only.
 *
 * The SES event destination is made here (the configuration set is the deployment's, the destination its own,
 * removed with the stack). End User Messaging SMS has no CloudFormation resource for an event destination of
 * an existing configuration set, nor for two-way SMS of a phone number bought outside the stack: docs/configuration.md
 * gives the two commands, naming the topic this stack outputs.
 */
export class MessageOutcomes extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: MessageOutcomesProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const publishers = ['ses.amazonaws.com', 'sms-voice.amazonaws.com'].map(
      (name) => new ServicePrincipal(name),
    );
    const key = new Key(this, 'Key', {
      description: 'Encrypts the Delivery Route Service message outcomes topic',
      enableKeyRotation: true,
    });
    for (const publisher of publishers) key.grant(publisher, 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'Topic', {
      displayName: 'Delivery Route Service customer message outcomes',
      masterKey: key,
      enforceSSL: true,
    });
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'MessagingServicesPublish',
        principals: publishers,
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
      }),
    );
    this.topic.addSubscription(new SqsSubscription(props.queue));
    if (props.emailConfigurationSet) {
      new CfnConfigurationSetEventDestination(this, 'EmailOutcomes', {
        configurationSetName: props.emailConfigurationSet,
        eventDestination: {
          name: 'delivery-route-service-outcomes',
          enabled: true,
          matchingEventTypes: SES_OUTCOME_EVENTS,
          snsDestination: { topicArn: this.topic.topicArn },
        },
      });
    }
    new CfnOutput(stack, 'MessageOutcomesTopicArn', {
      value: this.topic.topicArn,
      description:
        'SNS topic of customer message outcomes: the End User Messaging SMS event destination and two-way SMS channel (docs/configuration.md)',
    });
  }
}
