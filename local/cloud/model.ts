/**
 * The deployed configuration as the local runtime reads it: every fact it needs from the templates CDK
 * synthesizes, with CloudFormation's intrinsic functions resolved to local physical names, ARNs and URLs.
 * Nothing here is written by hand: `readDeployment` (local/cloud/deployment.ts) derives all of it from the
 * cloud assembly, so the local runtime follows any change made in CDK.
 */

/** The account and Region every local ARN is made of. */
export const LOCAL_ACCOUNT_ID = '000000000000';
export const LOCAL_REGION = 'us-east-1';

/** An IAM policy document with every value resolved. */
export interface PolicyDocument {
  Version?: string;
  Statement: PolicyStatement[];
}

export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  /** Resource-based policies only: who the statement is about (`*`, `{ Service: ... }`, `{ AWS: ... }`). */
  Principal?: '*' | Record<string, string | string[]>;
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

export interface TableSpec {
  logicalId: string;
  /** Path of the template that declares it (`<stack name>` or `<stack name>/<nested stack logical id>`). */
  stackPath: string;
  name: string;
  arn: string;
  partitionKey: { name: string; type: 'S' | 'N' | 'B' };
  sortKey?: { name: string; type: 'S' | 'N' | 'B' };
  /** Every attribute definition of the table (keys of the table and of its indexes). */
  attributeDefinitions: { name: string; type: 'S' | 'N' | 'B' }[];
  globalSecondaryIndexes: {
    name: string;
    partitionKey: string;
    sortKey?: string;
    projectionType: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
    nonKeyAttributes?: string[];
  }[];
  billingMode: 'PAY_PER_REQUEST' | 'PROVISIONED';
  /** Present when the table has a stream. */
  streamViewType?: 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES' | 'KEYS_ONLY';
  /**
   * The stream's ARN (what `Fn::GetAtt [Table, StreamArn]` resolves to): the one DynamoDB Local gave the table
   * when the caller passes it in `DeploymentOptions.tableStreamArns`, else `<table ARN>/stream/pending`.
   */
  streamArn?: string;
  ttlAttribute?: string;
}

export interface QueueSpec {
  logicalId: string;
  stackPath: string;
  name: string;
  arn: string;
  /** The URL functions and pollers use: on the local AWS endpoint (the signing proxy), path `/<account>/<name>`. */
  url: string;
  /**
   * The attributes as SQS's CreateQueue takes them (all strings): VisibilityTimeout, DelaySeconds,
   * MaximumMessageSize, MessageRetentionPeriod, ReceiveMessageWaitTimeSeconds and RedrivePolicy (JSON with
   * deadLetterTargetArn and maxReceiveCount) where the template sets them; absent ones keep SQS's defaults.
   */
  attributes: Record<string, string>;
}

export interface BucketSpec {
  logicalId: string;
  stackPath: string;
  name: string;
  arn: string;
  /** The template's `NotificationConfiguration`, resolved (e.g. QueueConfigurations), when it has one. */
  notificationConfiguration?: Record<string, unknown>;
  /** Its enabled lifecycle rules that expire objects after a number of days (local/cloud/expiry.ts). */
  expirationRules: { id: string; prefix: string; expireAfterDays: number }[];
}

/** An AWS::SQS::QueuePolicy: the resource-based policy of the queues it names. */
/** An AWS::KMS::Key: the local AWS endpoint serves KMS for the keys the templates declare, and no others. */
export interface KmsKeySpec {
  logicalId: string;
  stackPath: string;
  /** The key id (a UUID) and its ARN, `arn:aws:kms:<region>:<account>:key/<key id>`. */
  keyId: string;
  arn: string;
  /** KeySpec (SYMMETRIC_DEFAULT unless the template says otherwise). */
  keySpec: string;
  /** KeyUsage (ENCRYPT_DECRYPT unless the template says otherwise). */
  keyUsage: string;
  enabled: boolean;
}

export interface QueuePolicySpec {
  logicalId: string;
  stackPath: string;
  /** ARNs of the queues it applies to (the template names them by URL). */
  queueArns: string[];
  document: PolicyDocument;
}

/** An SNS subscription of a queue to a topic (AWS::SNS::Subscription, protocol `sqs`). */
export interface TopicSubscriptionSpec {
  logicalId: string;
  stackPath: string;
  topicArn: string;
  /** The subscribed queue's ARN. */
  queueArn: string;
  /** Raw message delivery: the queue gets the published message itself, not SNS's JSON envelope. */
  rawMessageDelivery: boolean;
}

export interface RoleSpec {
  logicalId: string;
  stackPath: string;
  name: string;
  arn: string;
  /**
   * Every identity-based policy attached to the role: its inline `Policies`, and each AWS::IAM::Policy or
   * AWS::IAM::ManagedPolicy of the templates that names the role. Reading a role that attaches an AWS
   * managed policy ARN fails: the local runtime cannot know its statements.
   */
  policies: PolicyDocument[];
  /** Who may assume the role (AssumeRolePolicyDocument). */
  trustPolicy: PolicyDocument;
  /** The service principals the trust policy names (`lambda.amazonaws.com`): roles a service hands out. */
  trustedServices: string[];
}

export interface FunctionSpec {
  logicalId: string;
  stackPath: string;
  /** The physical function name (64 characters at most). */
  name: string;
  arn: string;
  /** Source entry of the bundle, relative to the repository root (from the function's template metadata). */
  entry: string;
  /** Files (node_modules-relative) the asset ships beside the bundle, from the same metadata. */
  bundledFiles: string[];
  /** Build-time constants of the bundle (esbuild's `define`), from the same metadata; none when absent. */
  define?: Record<string, string>;
  /** `<file>.<export>`, e.g. `index.handler`. */
  handler: string;
  runtime: string;
  architectures: string[];
  memorySize: number;
  timeoutSeconds: number;
  /** Exactly the variables of the template's Environment.Variables, resolved. */
  environment: Record<string, string>;
  roleArn: string;
  /** ReservedConcurrentExecutions, when set. */
  reservedConcurrency?: number;
  logGroupName?: string;
}

export interface EventSourceMappingSpec {
  logicalId: string;
  stackPath: string;
  functionName: string;
  eventSourceArn: string;
  batchSize: number;
  maximumBatchingWindowSeconds: number;
  /** ScalingConfig.MaximumConcurrency, when set. */
  maximumConcurrency?: number;
  reportBatchItemFailures: boolean;
  enabled: boolean;
  /** FilterCriteria patterns (JSON strings), when set. */
  filterPatterns: string[];
}

export interface PipeSpec {
  logicalId: string;
  stackPath: string;
  name: string;
  roleArn: string;
  /** The source ARN: a DynamoDB stream ARN for this service's pipe. */
  source: string;
  target: string;
  /** FilterCriteria patterns (JSON strings) of the source. */
  filterPatterns: string[];
  /**
   * The SQS target's parameters (a FIFO queue's): each a static value or, starting with `$.`, a JSON path
   * into the record that gives each message its own (Pipes' dynamic path parameters).
   */
  sqsTarget?: { messageGroupId?: string; messageDeduplicationId?: string };
  /** The DynamoDB stream source's parameters, with CloudFormation's defaults filled in. */
  streamSource?: {
    batchSize: number;
    startingPosition: 'TRIM_HORIZON' | 'LATEST';
    maximumBatchingWindowSeconds: number;
    /** -1: retry until the record expires (the default). */
    maximumRetryAttempts: number;
    /** -1: no age limit (the default). */
    maximumRecordAgeSeconds: number;
    deadLetterArn?: string;
    onPartialBatchItemFailure?: string;
    parallelizationFactor: number;
  };
}

export interface ApiMethodSpec {
  logicalId: string;
  /** Resource path as API Gateway shows it, e.g. `/dcs/{dc_id}/drivers`. */
  path: string;
  httpMethod: string;
  /** 'NONE' | 'CUSTOM' | 'AWS_IAM' | 'COGNITO_USER_POOLS' */
  authorizationType: string;
  authorizerLogicalId?: string;
  apiKeyRequired: boolean;
  operationName?: string;
  /** The Lambda function a proxy integration invokes (AWS_PROXY, or AWS with `lambda:path` and proxy). */
  integration: { type: string; functionName?: string };
}

export interface ApiAuthorizerSpec {
  logicalId: string;
  /** 'REQUEST' | 'TOKEN' */
  type: string;
  name?: string;
  functionName: string;
  /** As in the template, e.g. `method.request.header.Authorization`. */
  identitySources: string[];
  resultTtlSeconds: number;
}

export interface GatewayResponseSpec {
  logicalId: string;
  /** e.g. UNAUTHORIZED, DEFAULT_5XX */
  responseType: string;
  statusCode?: number;
  /** By content type. */
  responseTemplates: Record<string, string>;
  /** e.g. `gatewayresponse.header.Content-Type` -> `'application/json'`. */
  responseParameters: Record<string, string>;
}

export interface ApiStageSpec {
  stageName: string;
  throttlingRateLimit?: number;
  throttlingBurstLimit?: number;
  /** Method settings, `resourcePath` and `httpMethod` as in the template (`/~1dcs~1{dc_id}`, `*`). */
  methodSettings: {
    resourcePath: string;
    httpMethod: string;
    throttlingRateLimit?: number;
    throttlingBurstLimit?: number;
  }[];
  tracingEnabled: boolean;
}

/**
 * An AWS::ApiGateway::UsagePlan of the API: its throttle, the API's stages it covers, and the API keys the
 * templates put in it (AWS::ApiGateway::UsagePlanKey); keys added at run time (CreateUsagePlanKey) are the
 * local API Gateway key store's (local/api-gateway/api-keys.ts).
 */
export interface UsagePlanSpec {
  logicalId: string;
  stackPath: string;
  /** The plan's id (what Ref gives, and CreateUsagePlanKey takes). */
  id: string;
  name?: string;
  /** Per API key: steady requests per second and bucket size; absent, no usage plan throttling. */
  throttle?: { rateLimit?: number; burstLimit?: number };
  /** Names of this API's stages the plan covers. */
  stages: string[];
  /**
   * The plan's per-method throttles on this API's stages (`ApiStages[].Throttle`, keyed
   * `/<resource path>/<HTTP method>`): per API key too, each key with a bucket of its own for the method.
   */
  methodThrottles: UsagePlanMethodThrottle[];
  /** API keys of the templates in the plan. */
  keys: { id: string; value: string; enabled: boolean }[];
}

/** One entry of a usage plan stage's per-method throttle map, for the method at `path` (`/dcs/{dc_id}`). */
export interface UsagePlanMethodThrottle {
  stage: string;
  path: string;
  httpMethod: string;
  rateLimit: number;
  burstLimit: number;
}

export interface RestApiSpec {
  logicalId: string;
  stackPath: string;
  id: string;
  name: string;
  minimumCompressionSize?: number;
  /** 'HEADER' | 'AUTHORIZER' */
  apiKeySource?: string;
  methods: ApiMethodSpec[];
  authorizers: ApiAuthorizerSpec[];
  gatewayResponses: GatewayResponseSpec[];
  stages: ApiStageSpec[];
  usagePlans: UsagePlanSpec[];
}

/** How local physical ids are made. */
export interface DeploymentOptions {
  /** Every physical name starts with it (`delivery-routes` for npm start, a per-file prefix in tests). */
  namePrefix: string;
  /** Origin of the local AWS endpoint (the signing proxy) that queue URLs point at, e.g. `http://127.0.0.1:4566`. */
  awsEndpoint: string;
  /** Stream ARNs of tables already created, by the table's logical id (DynamoDB Local makes them up). */
  tableStreamArns?: Record<string, string>;
}

/** The whole deployment, across the app's stacks and their nested stacks. */
export interface Deployment {
  accountId: string;
  region: string;
  tables: TableSpec[];
  queues: QueueSpec[];
  queuePolicies: QueuePolicySpec[];
  /** SNS subscriptions of the deployment's queues (the topics themselves are not emulated). */
  topicSubscriptions: TopicSubscriptionSpec[];
  buckets: BucketSpec[];
  keys: KmsKeySpec[];
  roles: RoleSpec[];
  functions: FunctionSpec[];
  eventSourceMappings: EventSourceMappingSpec[];
  pipes: PipeSpec[];
  restApis: RestApiSpec[];
}
