/**
 * Which IAM permissions AWS checks for each API operation the service and its local runtime call: the
 * action(s) and the resource ARN(s), as the Service Authorization Reference and the service guides give
 * them. An operation not listed here is refused (UnknownOperationError), never allowed by default.
 *
 * DynamoDB (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazondynamodb.html)
 *   GetItem, PutItem, UpdateItem, DeleteItem   dynamodb:<same name>     table ARN
 *   Query, Scan                                dynamodb:<same name>     table ARN, or `<table ARN>/index/<IndexName>`
 *   BatchGetItem, BatchWriteItem               dynamodb:<same name>     one check per table of RequestItems
 *   TransactWriteItems                         per item: dynamodb:PutItem / UpdateItem / DeleteItem /
 *                                              ConditionCheckItem on its table ("Using IAM with DynamoDB
 *                                              transactions": the underlying item operations' permissions)
 *   TransactGetItems                           per item: dynamodb:GetItem on its table
 *   BatchExecuteStatement                      per statement: dynamodb:PartiQLInsert on its table, for the one
 *                                              form of statement the local runtime reads (local/iam/partiql.ts:
 *                                              an INSERT of parameters; "IAM security policies with PartiQL for
 *                                              DynamoDB"); any other statement is refused as unknown
 *   DescribeTable, CreateTable, DeleteTable, UpdateTable, UpdateTimeToLive, DescribeTimeToLive
 *                                              dynamodb:<same name>     table ARN
 *   ListTables                                 dynamodb:ListTables      `*`
 * DynamoDB Streams (signed as `dynamodb`, X-Amz-Target DynamoDBStreams_20120810.*)
 *   DescribeStream, GetShardIterator           dynamodb:<same name>     stream ARN (StreamArn)
 *   GetRecords                                 dynamodb:GetRecords      stream ARN (the iterator's stream)
 *   ListStreams                                dynamodb:ListStreams     `*`
 * SQS (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonsqs.html)
 *   SendMessage and SendMessageBatch           sqs:SendMessage          queue ARN (no separate *Batch actions)
 *   DeleteMessage(+Batch), ChangeMessageVisibility(+Batch)   the non-batch action, queue ARN
 *   ReceiveMessage, GetQueueAttributes, SetQueueAttributes, PurgeQueue, DeleteQueue, TagQueue,
 *   UntagQueue, ListQueueTags, ListDeadLetterSourceQueues   sqs:<same name>, queue ARN (from QueueUrl)
 *   CreateQueue, GetQueueUrl                   sqs:<same name>          queue ARN (from QueueName)
 *   ListQueues                                 sqs:ListQueues           `*`
 * S3: s3-actions.ts.
 * STS (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssecuritytokenservice.html)
 *   AssumeRole                                 sts:AssumeRole           the role's ARN (RoleArn); the role's
 *                                              trust policy must also name the caller (local/aws-proxy/sts.ts)
 * API Gateway control plane (https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-control-access-using-iam-policies-to-create-and-manage-api.html):
 * the action is the HTTP method, the resource the path, `arn:aws:apigateway:<region>::<path>`
 *   CreateApiKey (POST /apikeys), GetApiKeys (GET /apikeys)                 apigateway:POST / GET
 *   GetApiKey (GET /apikeys/{id})                                          apigateway:GET
 *   CreateUsagePlanKey, GetUsagePlanKeys (POST / GET /usageplans/{id}/keys) apigateway:POST / GET
 * KMS (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awskeymanagementservice.html)
 *   GenerateDataKey                            kms:GenerateDataKey      key ARN `arn:aws:kms:<region>:<account>:key/<key id>`
 *                                                                       (the key KeyId names)
 *   Decrypt                                    kms:Decrypt              key ARN (the key the ciphertext was made
 *                                                                       under, whatever KeyId says)
 *   The key's own policy is not evaluated: CDK's default key policy delegates to the account's IAM policies,
 *   so on AWS the caller's role policy decides, as it does here.
 */
import { batchInserts } from './partiql';
import type { AuthorizationCheck } from './policy';

export type { AuthorizationCheck } from './policy';

/** Account and Region of the resources a request names: the Region comes from its signature's scope. */
export interface RequestScope {
  region: string;
  accountId: string;
}

export class UnknownOperationError extends Error {
  override name = 'UnknownOperationError';
  constructor(readonly operation: string) {
    super(
      `The local runtime does not know which IAM permissions AWS checks for ${operation}; ` +
        'add the operation to local/iam/actions.ts before using it.',
    );
  }
}

/** A request parameter that has to be present to name the resource is missing or of the wrong type. */
export class MalformedRequestError extends Error {
  override name = 'MalformedRequestError';
}

type Input = Record<string, unknown>;

function text(input: Input, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || value === '') throw new MalformedRequestError(`${name} is required`);
  return value;
}

function record(input: Input, name: string): Input {
  const value = input[name];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MalformedRequestError(`${name} is required`);
  }
  return value as Input;
}

export const check = (action: string, resource: string): AuthorizationCheck => ({ action, resource });

// ---------------------------------------------------------------------------------------------- DynamoDB

/** A table named by its name, or by its ARN (DynamoDB accepts either in TableName). */
export function tableArn(scope: RequestScope, table: string): string {
  return table.startsWith('arn:')
    ? normalizeDynamoDbArn(table, scope.region)
    : `arn:aws:dynamodb:${scope.region}:${scope.accountId}:table/${table}`;
}

/**
 * DynamoDB Local makes its ARNs with the Region `ddblocal`; AWS's carry the Region the table lives in,
 * which for the local runtime is the Region of the request.
 */
export function normalizeDynamoDbArn(arn: string, region: string): string {
  return arn.replace(/^arn:aws:dynamodb:ddblocal:/, `arn:aws:dynamodb:${region}:`);
}

const onTable =
  (action: string) =>
  (input: Input, scope: RequestScope): AuthorizationCheck[] => [
    check(action, tableArn(scope, text(input, 'TableName'))),
  ];

const onTableOrIndex =
  (action: string) =>
  (input: Input, scope: RequestScope): AuthorizationCheck[] => {
    const table = tableArn(scope, text(input, 'TableName'));
    const index = input.IndexName;
    return [check(action, typeof index === 'string' ? `${table}/index/${index}` : table)];
  };

const onEachRequestedTable =
  (action: string) =>
  (input: Input, scope: RequestScope): AuthorizationCheck[] =>
    Object.keys(record(input, 'RequestItems')).map((table) => check(action, tableArn(scope, table)));

/** Each TransactWriteItems element is authorized as the item operation it stands for. */
const TRANSACT_WRITE_ACTIONS: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
};

function transactItems(input: Input): Input[] {
  const items = input.TransactItems;
  if (!Array.isArray(items)) throw new MalformedRequestError('TransactItems is required');
  return items as Input[];
}

function transactWriteChecks(input: Input, scope: RequestScope): AuthorizationCheck[] {
  return transactItems(input).map((item) => {
    const [kind, operation] = Object.entries(item)[0] ?? [];
    const action = kind === undefined ? undefined : TRANSACT_WRITE_ACTIONS[kind];
    if (!action) throw new MalformedRequestError(`unknown TransactWriteItems element ${kind}`);
    return check(action, tableArn(scope, text(operation as Input, 'TableName')));
  });
}

function transactGetChecks(input: Input, scope: RequestScope): AuthorizationCheck[] {
  return transactItems(input).map((item) =>
    check('dynamodb:GetItem', tableArn(scope, text(record(item, 'Get'), 'TableName'))),
  );
}

/** Each statement of a BatchExecuteStatement: only PartiQL INSERTs of parameters are known. */
function batchStatementChecks(input: Input, scope: RequestScope): AuthorizationCheck[] {
  const inserts = batchInserts(input);
  if (!inserts) throw new MalformedRequestError('Statements is required');
  return inserts.map((insert, index) => {
    if (!insert) {
      const statement = String((input.Statements as Input[])[index]?.Statement ?? '').slice(0, 80);
      throw new UnknownOperationError(
        `DynamoDB BatchExecuteStatement statement ${JSON.stringify(statement)} (only INSERT INTO "<table>" ` +
          "VALUE {'<name>': ?, ...} is read: local/iam/partiql.ts)",
      );
    }
    return check('dynamodb:PartiQLInsert', tableArn(scope, insert.table));
  });
}

const onStream =
  (action: string) =>
  (input: Input, scope: RequestScope): AuthorizationCheck[] => [
    check(action, normalizeDynamoDbArn(text(input, 'StreamArn'), scope.region)),
  ];

/** DynamoDB Local's shard iterators start with their stream's ARN (`<stream ARN>|<shard>|...`). */
function getRecordsChecks(input: Input, scope: RequestScope): AuthorizationCheck[] {
  const iterator = text(input, 'ShardIterator');
  const streamArn = iterator.split('|')[0] as string;
  if (!streamArn.startsWith('arn:aws:dynamodb:')) {
    throw new MalformedRequestError('ShardIterator does not name a stream');
  }
  return [check('dynamodb:GetRecords', normalizeDynamoDbArn(streamArn, scope.region))];
}

type ChecksOf = (input: Input, scope: RequestScope) => AuthorizationCheck[];

const DYNAMODB: Record<string, ChecksOf> = {
  GetItem: onTable('dynamodb:GetItem'),
  PutItem: onTable('dynamodb:PutItem'),
  UpdateItem: onTable('dynamodb:UpdateItem'),
  DeleteItem: onTable('dynamodb:DeleteItem'),
  Query: onTableOrIndex('dynamodb:Query'),
  Scan: onTableOrIndex('dynamodb:Scan'),
  BatchGetItem: onEachRequestedTable('dynamodb:BatchGetItem'),
  BatchWriteItem: onEachRequestedTable('dynamodb:BatchWriteItem'),
  TransactWriteItems: transactWriteChecks,
  TransactGetItems: transactGetChecks,
  BatchExecuteStatement: batchStatementChecks,
  DescribeTable: onTable('dynamodb:DescribeTable'),
  CreateTable: onTable('dynamodb:CreateTable'),
  DeleteTable: onTable('dynamodb:DeleteTable'),
  UpdateTable: onTable('dynamodb:UpdateTable'),
  UpdateTimeToLive: onTable('dynamodb:UpdateTimeToLive'),
  DescribeTimeToLive: onTable('dynamodb:DescribeTimeToLive'),
  ListTables: () => [check('dynamodb:ListTables', '*')],
};

const DYNAMODB_STREAMS: Record<string, ChecksOf> = {
  DescribeStream: onStream('dynamodb:DescribeStream'),
  GetShardIterator: onStream('dynamodb:GetShardIterator'),
  GetRecords: getRecordsChecks,
  ListStreams: () => [check('dynamodb:ListStreams', '*')],
};

const TARGET_PREFIXES: Record<string, Record<string, ChecksOf>> = {
  DynamoDB_20120810: DYNAMODB,
  DynamoDBStreams_20120810: DYNAMODB_STREAMS,
};

/** The checks for a DynamoDB or DynamoDB Streams call, by its `X-Amz-Target` (`DynamoDB_20120810.GetItem`). */
export function dynamodbChecks(target: string, input: Input, scope: RequestScope): AuthorizationCheck[] {
  const [prefix = '', operation = ''] = target.split('.');
  const checksOf = TARGET_PREFIXES[prefix]?.[operation];
  if (!checksOf) throw new UnknownOperationError(`DynamoDB ${target}`);
  return checksOf(input, scope);
}

// --------------------------------------------------------------------------------------------------- SQS

export function queueArn(scope: RequestScope, accountId: string, name: string): string {
  return `arn:aws:sqs:${scope.region}:${accountId}:${name}`;
}

/** The account and name in a queue URL's path (`<origin>/<account>/<name>`). */
export function queueUrlParts(url: string): { accountId: string; name: string } {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    throw new MalformedRequestError(`QueueUrl ${url} is not a URL`);
  }
  const match = /^\/(\d{12})\/([^/]+)$/.exec(path);
  if (!match) throw new MalformedRequestError(`QueueUrl ${url} does not name a queue`);
  return { accountId: match[1] as string, name: decodeURIComponent(match[2] as string) };
}

const onQueueUrl =
  (action: string) =>
  (input: Input, scope: RequestScope): AuthorizationCheck[] => {
    const { accountId, name } = queueUrlParts(text(input, 'QueueUrl'));
    return [check(action, queueArn(scope, accountId, name))];
  };

const onQueueName =
  (action: string) =>
  (input: Input, scope: RequestScope): AuthorizationCheck[] => {
    const owner = input.QueueOwnerAWSAccountId;
    const accountId = typeof owner === 'string' && owner !== '' ? owner : scope.accountId;
    return [check(action, queueArn(scope, accountId, text(input, 'QueueName')))];
  };

const SQS: Record<string, ChecksOf> = {
  SendMessage: onQueueUrl('sqs:SendMessage'),
  SendMessageBatch: onQueueUrl('sqs:SendMessage'),
  ReceiveMessage: onQueueUrl('sqs:ReceiveMessage'),
  DeleteMessage: onQueueUrl('sqs:DeleteMessage'),
  DeleteMessageBatch: onQueueUrl('sqs:DeleteMessage'),
  ChangeMessageVisibility: onQueueUrl('sqs:ChangeMessageVisibility'),
  ChangeMessageVisibilityBatch: onQueueUrl('sqs:ChangeMessageVisibility'),
  GetQueueAttributes: onQueueUrl('sqs:GetQueueAttributes'),
  SetQueueAttributes: onQueueUrl('sqs:SetQueueAttributes'),
  PurgeQueue: onQueueUrl('sqs:PurgeQueue'),
  DeleteQueue: onQueueUrl('sqs:DeleteQueue'),
  TagQueue: onQueueUrl('sqs:TagQueue'),
  UntagQueue: onQueueUrl('sqs:UntagQueue'),
  ListQueueTags: onQueueUrl('sqs:ListQueueTags'),
  ListDeadLetterSourceQueues: onQueueUrl('sqs:ListDeadLetterSourceQueues'),
  CreateQueue: onQueueName('sqs:CreateQueue'),
  GetQueueUrl: onQueueName('sqs:GetQueueUrl'),
  ListQueues: () => [check('sqs:ListQueues', '*')],
};

/** The checks for an SQS call by its operation name (`SendMessage`, from `X-Amz-Target: AmazonSQS.SendMessage`). */
export function sqsChecks(operation: string, input: Input, scope: RequestScope): AuthorizationCheck[] {
  const checksOf = SQS[operation];
  if (!checksOf) throw new UnknownOperationError(`SQS ${operation}`);
  return checksOf(input, scope);
}

// ---------------------------------------------------------------------------------------------------- S3

const STS: Record<string, ChecksOf> = {
  AssumeRole: (input) => [check('sts:AssumeRole', text(input, 'RoleArn'))],
};

/** The checks for an STS call by its Query protocol `Action` (`AssumeRole`). */
export function stsChecks(action: string, input: Input, scope: RequestScope): AuthorizationCheck[] {
  const checksOf = STS[action];
  if (!checksOf) throw new UnknownOperationError(`STS ${action}`);
  return checksOf(input, scope);
}

// ------------------------------------------------------------------------------------------- API Gateway

/** The API Gateway operations the local AWS endpoint serves, by method and path pattern. */
const API_GATEWAY: { method: string; path: RegExp; operation: string }[] = [
  { method: 'POST', path: /^\/apikeys$/, operation: 'CreateApiKey' },
  { method: 'GET', path: /^\/apikeys$/, operation: 'GetApiKeys' },
  { method: 'GET', path: /^\/apikeys\/[^/]+$/, operation: 'GetApiKey' },
  { method: 'POST', path: /^\/usageplans\/[^/]+\/keys$/, operation: 'CreateUsagePlanKey' },
  { method: 'GET', path: /^\/usageplans\/[^/]+\/keys$/, operation: 'GetUsagePlanKeys' },
];

/** The operation of an API Gateway control-plane request (decoded path) and its one check. */
export function apiGatewayChecks(
  method: string,
  path: string,
  scope: RequestScope,
): { operation: string; checks: AuthorizationCheck[] } {
  const found = API_GATEWAY.find((candidate) => candidate.method === method && candidate.path.test(path));
  if (!found) throw new UnknownOperationError(`API Gateway ${method} ${path}`);
  return {
    operation: found.operation,
    checks: [check(`apigateway:${method}`, `arn:aws:apigateway:${scope.region}::${path}`)],
  };
}

// --------------------------------------------------------------------------------------------------- KMS

const KMS: Record<string, string> = {
  GenerateDataKey: 'kms:GenerateDataKey',
  Decrypt: 'kms:Decrypt',
};

/**
 * The checks for a KMS call by its operation (`Decrypt`, from `X-Amz-Target: TrentService.Decrypt`), on the
 * ARN of the key it uses: the KMS handler finds that key (from KeyId, or from the ciphertext for Decrypt).
 */
export function kmsChecks(operation: string, keyArn: string): AuthorizationCheck[] {
  const action = KMS[operation];
  if (!action) throw new UnknownOperationError(`KMS ${operation}`);
  return [check(action, keyArn)];
}

/** True for an operation kmsChecks knows. */
export const isKmsOperation = (operation: string): boolean => operation in KMS;
