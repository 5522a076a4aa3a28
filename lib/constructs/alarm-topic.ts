import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface AlarmTopicProps {
  /** Subscribed by email when given (the recipient confirms once); other subscriptions can be added by hand. */
  readonly email?: string;
}

/**
 * The SNS topic every alarm of the service notifies. Encrypted with its own key, which CloudWatch may use:
 * alarms cannot publish to a topic under the AWS managed SNS key.
 *
 * `enforceSSL` gives the topic a policy, and a topic policy replaces SNS's default one (which lets the
 * account's principals publish): without a statement of its own for CloudWatch, no alarm could notify.
 */
export class AlarmTopic extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: AlarmTopicProps = {}) {
    super(scope, id);
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    const key = new Key(this, 'Key', {
      description: 'Encrypts the Delivery Route Service alarm topic',
      enableKeyRotation: true,
    });
    key.grant(cloudWatch, 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.topic = new Topic(this, 'Topic', {
      displayName: 'Delivery Route Service alarms',
      masterKey: key,
      enforceSSL: true,
    });
    // Only for alarms of this account and Region (the confused deputy: CloudWatch acts for every account),
    // with the conditions AWS's examples for CloudWatch alarms publishing to SNS use.
    const stack = Stack.of(this);
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
  }
}
