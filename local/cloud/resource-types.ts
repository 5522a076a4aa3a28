import type { DeploymentOptions } from './model';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './model';
import { generatedId, generatedUuid, NAMING_RULES, type NamingRule, shortHash } from './physical-ids';

/** What a resource type's Ref and Fn::GetAtt are made from. */
export interface ResourceContext {
  readonly logicalId: string;
  readonly stackPath: string;
  readonly options: DeploymentOptions;
  /** The resource's physical id (see ResourceKind.physicalId), computed once. */
  readonly id: string;
  /** A resolved property of the resource (undefined when absent). */
  property(name: string): unknown;
  /** The explicit name the template gives in `property`, if any. */
  explicitName(property: string): string | undefined;
  /** `<namePrefix>-<logical id>` within `rule`. */
  generatedName(rule: NamingRule): string;
  /** Seed for generated ids: unique per resource of the assembly, the same on every read. */
  readonly seed: string;
}

/** How CloudFormation identifies resources of one type. */
export interface ResourceKind {
  /** The physical id: a name (explicit or generated) or a made-up id, as the service does. */
  physicalId(resource: ResourceContext): string;
  /** What `Ref` gives. @default the physical id */
  ref?(resource: ResourceContext): string;
  /** `Fn::GetAtt` attributes by name. */
  attributes: Record<string, (resource: ResourceContext) => unknown>;
}

/** `arn:aws:<service>:<region>:<account>:<resource>`; S3 and IAM ARNs leave region (and S3 account) empty. */
export function localArn(
  service: string,
  resource: string,
  scope: 'regional' | 'global' | 'none' = 'regional',
) {
  const region = scope === 'regional' ? LOCAL_REGION : '';
  const account = scope === 'none' ? '' : LOCAL_ACCOUNT_ID;
  return `arn:aws:${service}:${region}:${account}:${resource}`;
}

/** A queue's URL on the local AWS endpoint, as SQS shapes it: `<endpoint>/<account>/<name>`. */
export function localQueueUrl(options: DeploymentOptions, name: string): string {
  return `${options.awsEndpoint.replace(/\/+$/, '')}/${LOCAL_ACCOUNT_ID}/${name}`;
}

const named =
  (property: string, rule: NamingRule) =>
  (resource: ResourceContext): string =>
    resource.explicitName(property) ?? resource.generatedName(rule);

const madeUpId = (length: number) => (resource: ResourceContext) => generatedId(resource.seed, length);

const TABLE: ResourceKind = {
  physicalId: named('TableName', NAMING_RULES.table),
  attributes: {
    Arn: (table) => localArn('dynamodb', `table/${table.id}`),
    StreamArn: (table) => {
      if (table.property('StreamSpecification') === undefined) {
        throw new Error(`table ${table.logicalId} has no StreamSpecification, so no StreamArn`);
      }
      return (
        table.options.tableStreamArns?.[table.logicalId] ??
        `${localArn('dynamodb', `table/${table.id}`)}/stream/pending`
      );
    },
  },
};

/** A FIFO queue's generated name ends in `.fifo`, as CloudFormation makes it. */
function queueName(queue: ResourceContext): string {
  const explicit = queue.explicitName('QueueName');
  if (explicit) return explicit;
  const fifo = String(queue.property('FifoQueue')) === 'true';
  if (!fifo) return queue.generatedName(NAMING_RULES.queue);
  return `${queue.generatedName({ ...NAMING_RULES.queue, maxLength: NAMING_RULES.queue.maxLength - 5 })}.fifo`;
}

const QUEUE: ResourceKind = {
  physicalId: queueName,
  ref: (queue) => localQueueUrl(queue.options, queue.id),
  attributes: {
    Arn: (queue) => localArn('sqs', queue.id),
    QueueName: (queue) => queue.id,
    QueueUrl: (queue) => localQueueUrl(queue.options, queue.id),
  },
};

const BUCKET: ResourceKind = {
  physicalId: named('BucketName', NAMING_RULES.bucket),
  attributes: {
    Arn: (bucket) => localArn('s3', bucket.id, 'none'),
    DomainName: (bucket) => `${bucket.id}.s3.amazonaws.com`,
    RegionalDomainName: (bucket) => `${bucket.id}.s3.${LOCAL_REGION}.amazonaws.com`,
    DualStackDomainName: (bucket) => `${bucket.id}.s3.dualstack.${LOCAL_REGION}.amazonaws.com`,
    WebsiteURL: (bucket) => `http://${bucket.id}.s3-website-${LOCAL_REGION}.amazonaws.com`,
  },
};

const FUNCTION: ResourceKind = {
  physicalId: named('FunctionName', NAMING_RULES.function),
  attributes: { Arn: (fn) => localArn('lambda', `function:${fn.id}`) },
};

/** IAM paths start and end with `/`; the default is `/`. */
const iamPath = (resource: ResourceContext) => {
  const path = resource.property('Path');
  return typeof path === 'string' ? path : '/';
};

const ROLE: ResourceKind = {
  physicalId: named('RoleName', NAMING_RULES.role),
  attributes: {
    Arn: (role) => localArn('iam', `role${iamPath(role)}${role.id}`, 'global'),
    // Role ids are AROA followed by 17 upper-case letters and digits.
    RoleId: (role) => `AROA${shortHash(role.seed, 17).toUpperCase()}`,
  },
};

const MANAGED_POLICY: ResourceKind = {
  physicalId: named('ManagedPolicyName', NAMING_RULES.managedPolicy),
  ref: (policy) => localArn('iam', `policy${iamPath(policy)}${policy.id}`, 'global'),
  attributes: {
    PolicyArn: (policy) => localArn('iam', `policy${iamPath(policy)}${policy.id}`, 'global'),
    PolicyId: (policy) => `ANPA${shortHash(policy.seed, 17).toUpperCase()}`,
  },
};

const LOG_GROUP: ResourceKind = {
  physicalId: named('LogGroupName', NAMING_RULES.logGroup),
  attributes: { Arn: (group) => localArn('logs', `log-group:${group.id}:*`) },
};

const TOPIC: ResourceKind = {
  physicalId: (topic) => {
    const explicit = topic.explicitName('TopicName');
    if (explicit) return explicit;
    const fifo = String(topic.property('FifoTopic')) === 'true';
    return fifo
      ? `${topic.generatedName({ ...NAMING_RULES.topic, maxLength: NAMING_RULES.topic.maxLength - 5 })}.fifo`
      : topic.generatedName(NAMING_RULES.topic);
  },
  ref: (topic) => localArn('sns', topic.id),
  attributes: {
    TopicArn: (topic) => localArn('sns', topic.id),
    TopicName: (topic) => topic.id,
  },
};

const KMS_KEY: ResourceKind = {
  physicalId: (key) => generatedUuid(key.seed),
  attributes: {
    Arn: (key) => localArn('kms', `key/${key.id}`),
    KeyId: (key) => key.id,
  },
};

const PIPE: ResourceKind = {
  physicalId: named('Name', NAMING_RULES.pipe),
  attributes: { Arn: (pipe) => localArn('pipes', `pipe/${pipe.id}`) },
};

const ALARM: ResourceKind = {
  physicalId: named('AlarmName', NAMING_RULES.alarm),
  attributes: { Arn: (alarm) => localArn('cloudwatch', `alarm:${alarm.id}`) },
};

const REST_API: ResourceKind = {
  physicalId: madeUpId(10),
  attributes: {
    RestApiId: (api) => api.id,
    RootResourceId: (api) => generatedId(`${api.seed}/root`, 10),
  },
};

const STAGE: ResourceKind = {
  physicalId: (stage) => {
    const name = stage.property('StageName');
    if (typeof name !== 'string') throw new Error(`stage ${stage.logicalId} has no StageName`);
    return name;
  },
  attributes: {},
};

/** Ref and Fn::GetAtt of the types the local runtime reads, as CloudFormation documents them per type. */
export const RESOURCE_KINDS: Record<string, ResourceKind> = {
  'AWS::DynamoDB::Table': TABLE,
  'AWS::SQS::Queue': QUEUE,
  'AWS::S3::Bucket': BUCKET,
  'AWS::Lambda::Function': FUNCTION,
  'AWS::IAM::Role': ROLE,
  'AWS::IAM::ManagedPolicy': MANAGED_POLICY,
  'AWS::Logs::LogGroup': LOG_GROUP,
  'AWS::SNS::Topic': TOPIC,
  'AWS::KMS::Key': KMS_KEY,
  'AWS::Pipes::Pipe': PIPE,
  'AWS::CloudWatch::Alarm': ALARM,
  'AWS::ApiGateway::RestApi': REST_API,
  'AWS::ApiGateway::Resource': { physicalId: madeUpId(10), attributes: { ResourceId: (r) => r.id } },
  'AWS::ApiGateway::Authorizer': { physicalId: madeUpId(6), attributes: { AuthorizerId: (a) => a.id } },
  'AWS::ApiGateway::Deployment': { physicalId: madeUpId(6), attributes: { DeploymentId: (d) => d.id } },
  'AWS::ApiGateway::Stage': STAGE,
  'AWS::ApiGateway::UsagePlan': { physicalId: madeUpId(6), attributes: { Id: (plan) => plan.id } },
  'AWS::ApiGateway::ApiKey': { physicalId: madeUpId(10), attributes: { APIKeyId: (key) => key.id } },
  'AWS::ApiGateway::UsagePlanKey': { physicalId: madeUpId(10), attributes: { Id: (key) => key.id } },
};

/**
 * Types the local runtime does not use: Ref gives `<namePrefix>-<logical id>`, and `Arn` an ARN of the
 * type's service; any other attribute is an error (nothing local could stand for it).
 */
export function genericKind(type: string): ResourceKind {
  const [, service = 'unknown', resourceType = 'resource'] = type.split('::');
  return {
    physicalId: (resource) => resource.generatedName(NAMING_RULES.generic),
    attributes: {
      Arn: (resource) => localArn(service.toLowerCase(), `${resourceType.toLowerCase()}/${resource.id}`),
    },
  };
}
