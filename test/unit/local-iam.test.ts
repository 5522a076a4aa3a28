import { describe, expect, inject, it } from 'vitest';
import { readDeployment } from '../../local/cloud/deployment';
import type { PolicyDocument } from '../../local/cloud/model';
import {
  type AuthorizationCheck,
  apiGatewayChecks,
  dynamodbChecks,
  kmsChecks,
  MalformedRequestError,
  type RequestScope,
  s3Operation,
  sqsChecks,
  stsChecks,
  UnknownOperationError,
} from '../../local/iam/actions';
import {
  actionMatches,
  arnMatches,
  evaluate,
  trustDecision,
  UnsupportedPolicyError,
  validatePolicy,
} from '../../local/iam/policy';

const scope: RequestScope = { region: 'us-east-1', accountId: '000000000000' };
const table = 'arn:aws:dynamodb:us-east-1:000000000000:table/routes';
const other = 'arn:aws:dynamodb:us-east-1:000000000000:table/other';
const stream = `${table}/stream/2026-01-01T00:00:00.000`;
const queue = 'arn:aws:sqs:us-east-1:000000000000:imports';
const queueUrl = 'http://127.0.0.1:4566/000000000000/imports';
const object = 'arn:aws:s3:::exports/analytics/a b.csv';
const bucket = 'arn:aws:s3:::exports';

const check = (action: string, resource: string): AuthorizationCheck => ({ action, resource });

describe('DynamoDB operations', () => {
  const cases: [string, Record<string, unknown>, AuthorizationCheck[]][] = [
    ['GetItem', { TableName: 'routes' }, [check('dynamodb:GetItem', table)]],
    ['PutItem', { TableName: 'routes' }, [check('dynamodb:PutItem', table)]],
    ['UpdateItem', { TableName: 'routes' }, [check('dynamodb:UpdateItem', table)]],
    ['DeleteItem', { TableName: 'routes' }, [check('dynamodb:DeleteItem', table)]],
    [
      'Query',
      { TableName: 'routes', IndexName: 'byDriver' },
      [check('dynamodb:Query', `${table}/index/byDriver`)],
    ],
    ['Scan', { TableName: 'routes' }, [check('dynamodb:Scan', table)]],
    [
      'BatchGetItem',
      { RequestItems: { routes: { Keys: [] }, other: { Keys: [] } } },
      [check('dynamodb:BatchGetItem', table), check('dynamodb:BatchGetItem', other)],
    ],
    ['BatchWriteItem', { RequestItems: { routes: [] } }, [check('dynamodb:BatchWriteItem', table)]],
    [
      'TransactWriteItems',
      {
        TransactItems: [
          { Put: { TableName: 'routes' } },
          { Update: { TableName: 'routes' } },
          { Delete: { TableName: 'other' } },
          { ConditionCheck: { TableName: 'routes' } },
        ],
      },
      [
        check('dynamodb:PutItem', table),
        check('dynamodb:UpdateItem', table),
        check('dynamodb:DeleteItem', other),
        check('dynamodb:ConditionCheckItem', table),
      ],
    ],
    [
      'TransactGetItems',
      { TransactItems: [{ Get: { TableName: 'routes' } }, { Get: { TableName: 'other' } }] },
      [check('dynamodb:GetItem', table), check('dynamodb:GetItem', other)],
    ],
    ['DescribeTable', { TableName: 'routes' }, [check('dynamodb:DescribeTable', table)]],
    ['CreateTable', { TableName: 'routes' }, [check('dynamodb:CreateTable', table)]],
    ['DeleteTable', { TableName: 'routes' }, [check('dynamodb:DeleteTable', table)]],
    ['UpdateTable', { TableName: 'routes' }, [check('dynamodb:UpdateTable', table)]],
    ['UpdateTimeToLive', { TableName: 'routes' }, [check('dynamodb:UpdateTimeToLive', table)]],
    ['DescribeTimeToLive', { TableName: table }, [check('dynamodb:DescribeTimeToLive', table)]],
    ['ListTables', {}, [check('dynamodb:ListTables', '*')]],
  ];
  it.each(cases)('%s', (operation, input, expected) => {
    expect(dynamodbChecks(`DynamoDB_20120810.${operation}`, input, scope)).toEqual(expected);
  });

  it('Query and Scan without IndexName check the table', () => {
    expect(dynamodbChecks('DynamoDB_20120810.Query', { TableName: 'routes' }, scope)).toEqual([
      check('dynamodb:Query', table),
    ]);
  });

  it('refuses what it does not know, and requests that name no table', () => {
    expect(() => dynamodbChecks('DynamoDB_20120810.ExecuteStatement', {}, scope)).toThrow(
      UnknownOperationError,
    );
    expect(() => dynamodbChecks('DynamoDB_20120810.GetItem', {}, scope)).toThrow(MalformedRequestError);
  });
});

describe('DynamoDB Streams operations', () => {
  const localStream = stream.replace(':us-east-1:', ':ddblocal:');
  const cases: [string, Record<string, unknown>, AuthorizationCheck[]][] = [
    ['DescribeStream', { StreamArn: localStream }, [check('dynamodb:DescribeStream', stream)]],
    ['GetShardIterator', { StreamArn: stream }, [check('dynamodb:GetShardIterator', stream)]],
    ['GetRecords', { ShardIterator: `${localStream}|001|c2hhcmQ=` }, [check('dynamodb:GetRecords', stream)]],
    ['ListStreams', { TableName: 'routes' }, [check('dynamodb:ListStreams', '*')]],
  ];
  it.each(cases)('%s (DynamoDB Local ARNs in the request Region)', (operation, input, expected) => {
    expect(dynamodbChecks(`DynamoDBStreams_20120810.${operation}`, input, scope)).toEqual(expected);
  });
});

describe('SQS operations', () => {
  const cases: [string, Record<string, unknown>, AuthorizationCheck[]][] = [
    ['SendMessage', { QueueUrl: queueUrl }, [check('sqs:SendMessage', queue)]],
    ['SendMessageBatch', { QueueUrl: queueUrl }, [check('sqs:SendMessage', queue)]],
    ['ReceiveMessage', { QueueUrl: queueUrl }, [check('sqs:ReceiveMessage', queue)]],
    ['DeleteMessage', { QueueUrl: queueUrl }, [check('sqs:DeleteMessage', queue)]],
    ['DeleteMessageBatch', { QueueUrl: queueUrl }, [check('sqs:DeleteMessage', queue)]],
    ['ChangeMessageVisibility', { QueueUrl: queueUrl }, [check('sqs:ChangeMessageVisibility', queue)]],
    ['ChangeMessageVisibilityBatch', { QueueUrl: queueUrl }, [check('sqs:ChangeMessageVisibility', queue)]],
    ['GetQueueAttributes', { QueueUrl: queueUrl }, [check('sqs:GetQueueAttributes', queue)]],
    ['SetQueueAttributes', { QueueUrl: queueUrl }, [check('sqs:SetQueueAttributes', queue)]],
    ['PurgeQueue', { QueueUrl: queueUrl }, [check('sqs:PurgeQueue', queue)]],
    ['DeleteQueue', { QueueUrl: queueUrl }, [check('sqs:DeleteQueue', queue)]],
    ['CreateQueue', { QueueName: 'imports' }, [check('sqs:CreateQueue', queue)]],
    ['GetQueueUrl', { QueueName: 'imports' }, [check('sqs:GetQueueUrl', queue)]],
    ['ListQueues', {}, [check('sqs:ListQueues', '*')]],
  ];
  it.each(cases)('%s', (operation, input, expected) => {
    expect(sqsChecks(operation, input, scope)).toEqual(expected);
  });

  it('refuses what it does not know, and queue URLs that name no queue', () => {
    expect(() => sqsChecks('AddPermission', { QueueUrl: queueUrl }, scope)).toThrow(UnknownOperationError);
    expect(() => sqsChecks('SendMessage', { QueueUrl: 'http://127.0.0.1/' }, scope)).toThrow(
      MalformedRequestError,
    );
  });
});

describe('S3 operations', () => {
  const request = (method: string, key: string, query = '', headers: Record<string, string> = {}) =>
    s3Operation({ method, bucket: 'exports', key, query: new URLSearchParams(query), headers });
  const cases: [string, ReturnType<typeof request>, AuthorizationCheck[]][] = [
    ['GetObject', request('GET', 'analytics/a b.csv', 'x-id=GetObject'), [check('s3:GetObject', object)]],
    [
      'GetObject (presigned)',
      request(
        'GET',
        'analytics/a b.csv',
        'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=00&x-amz-checksum-mode=ENABLED&response-content-disposition=x',
      ),
      [check('s3:GetObject', object)],
    ],
    ['HeadObject', request('HEAD', 'analytics/a b.csv'), [check('s3:GetObject', object)]],
    ['PutObject', request('PUT', 'analytics/a b.csv'), [check('s3:PutObject', object)]],
    [
      'CreateMultipartUpload',
      request('POST', 'analytics/a b.csv', 'uploads'),
      [check('s3:PutObject', object)],
    ],
    [
      'UploadPart',
      request('PUT', 'analytics/a b.csv', 'partNumber=1&uploadId=u'),
      [check('s3:PutObject', object)],
    ],
    [
      'CompleteMultipartUpload',
      request('POST', 'analytics/a b.csv', 'uploadId=u'),
      [check('s3:PutObject', object)],
    ],
    [
      'AbortMultipartUpload',
      request('DELETE', 'analytics/a b.csv', 'uploadId=u'),
      [check('s3:AbortMultipartUpload', object)],
    ],
    [
      'ListParts',
      request('GET', 'analytics/a b.csv', 'uploadId=u'),
      [check('s3:ListMultipartUploadParts', object)],
    ],
    ['DeleteObject', request('DELETE', 'analytics/a b.csv'), [check('s3:DeleteObject', object)]],
    [
      'CopyObject',
      request('PUT', 'analytics/a b.csv', '', { 'x-amz-copy-source': '/imports/in%20put.json' }),
      [check('s3:GetObject', 'arn:aws:s3:::imports/in put.json'), check('s3:PutObject', object)],
    ],
    [
      'ListObjectsV2',
      request('GET', '', 'list-type=2&prefix=analytics%2F'),
      [check('s3:ListBucket', bucket)],
    ],
    ['HeadBucket', request('HEAD', ''), [check('s3:ListBucket', bucket)]],
    ['CreateBucket', request('PUT', ''), [check('s3:CreateBucket', bucket)]],
    ['DeleteBucket', request('DELETE', ''), [check('s3:DeleteBucket', bucket)]],
    [
      'PutBucketNotificationConfiguration',
      request('PUT', '', 'notification'),
      [check('s3:PutBucketNotification', bucket)],
    ],
    ['ListMultipartUploads', request('GET', '', 'uploads'), [check('s3:ListBucketMultipartUploads', bucket)]],
  ];
  it.each(cases)('%s', (operation, actual, expected) => {
    expect(actual).toEqual({ operation: operation.replace(' (presigned)', ''), checks: expected });
  });

  it('ListBuckets', () => {
    expect(
      s3Operation({ method: 'GET', bucket: '', key: '', query: new URLSearchParams(), headers: {} }),
    ).toEqual({
      operation: 'ListBuckets',
      checks: [check('s3:ListAllMyBuckets', '*')],
    });
  });

  it('refuses subresources it does not know (tagging, ACLs, versions)', () => {
    expect(() => request('PUT', 'a', 'tagging')).toThrow(UnknownOperationError);
    expect(() => request('GET', 'a', 'acl')).toThrow(UnknownOperationError);
    expect(() => request('GET', 'a', 'versionId=1')).toThrow(UnknownOperationError);
    expect(() => request('POST', '', 'delete')).toThrow(UnknownOperationError);
    expect(() => request('GET', 'a', 'uploads')).toThrow(UnknownOperationError);
  });
});

describe('STS operations', () => {
  const role = 'arn:aws:iam::000000000000:role/link-signer';

  it('AssumeRole checks sts:AssumeRole on the role', () => {
    expect(stsChecks('AssumeRole', { RoleArn: role, RoleSessionName: 's' }, scope)).toEqual([
      check('sts:AssumeRole', role),
    ]);
  });

  it('refuses what it does not know, and AssumeRole without a role', () => {
    expect(() => stsChecks('GetSessionToken', {}, scope)).toThrow(UnknownOperationError);
    expect(() => stsChecks('AssumeRole', { RoleSessionName: 's' }, scope)).toThrow(MalformedRequestError);
  });
});

describe('API Gateway operations', () => {
  it('checks apigateway:<HTTP method> on the path of the call', () => {
    expect(apiGatewayChecks('POST', '/apikeys', scope)).toEqual({
      operation: 'CreateApiKey',
      checks: [check('apigateway:POST', 'arn:aws:apigateway:us-east-1::/apikeys')],
    });
    expect(apiGatewayChecks('GET', '/apikeys', scope).checks).toEqual([
      check('apigateway:GET', 'arn:aws:apigateway:us-east-1::/apikeys'),
    ]);
    expect(apiGatewayChecks('POST', '/usageplans/ab12cd/keys', scope)).toEqual({
      operation: 'CreateUsagePlanKey',
      checks: [check('apigateway:POST', 'arn:aws:apigateway:us-east-1::/usageplans/ab12cd/keys')],
    });
  });

  it('refuses what it does not know', () => {
    expect(() => apiGatewayChecks('DELETE', '/apikeys/k1', scope)).toThrow(UnknownOperationError);
    expect(() => apiGatewayChecks('PATCH', '/restapis/a1', scope)).toThrow(UnknownOperationError);
  });
});

describe('KMS operations', () => {
  const key = 'arn:aws:kms:us-east-1:000000000000:key/6f1c3f0e-1a2b-4c3d-8e9f-0a1b2c3d4e5f';

  it('GenerateDataKey and Decrypt check their own action on the key ARN', () => {
    expect(kmsChecks('GenerateDataKey', key)).toEqual([check('kms:GenerateDataKey', key)]);
    expect(kmsChecks('Decrypt', key)).toEqual([check('kms:Decrypt', key)]);
  });

  it('refuses what it does not know (Encrypt is not served)', () => {
    expect(() => kmsChecks('Encrypt', key)).toThrow(UnknownOperationError);
    expect(() => kmsChecks('ReEncrypt', key)).toThrow(UnknownOperationError);
  });
});

describe('trust policy evaluation', () => {
  const caller = { arn: 'arn:aws:iam::000000000000:role/uploader', accountId: '000000000000' };
  const trusting = (AWS: string | string[], Effect: 'Allow' | 'Deny' = 'Allow'): PolicyDocument => ({
    Statement: [{ Effect, Action: 'sts:AssumeRole', Principal: { AWS } }],
  });

  it("allows the role it names, or the caller's account", () => {
    expect(trustDecision(trusting(caller.arn), caller, 'sts:AssumeRole', {})).toBe('Allow');
    expect(trustDecision(trusting('arn:aws:iam::000000000000:root'), caller, 'sts:AssumeRole', {})).toBe(
      'Allow',
    );
  });

  it('denies another role, another action, a service principal, and an explicit Deny', () => {
    const other = 'arn:aws:iam::000000000000:role/other';
    expect(trustDecision(trusting(other), caller, 'sts:AssumeRole', {})).toBe('ImplicitDeny');
    expect(trustDecision(trusting(caller.arn), caller, 'sts:TagSession', {})).toBe('ImplicitDeny');
    const lambda: PolicyDocument = {
      Statement: [
        { Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'lambda.amazonaws.com' } },
      ],
    };
    expect(trustDecision(lambda, caller, 'sts:AssumeRole', {})).toBe('ImplicitDeny');
    const denied = {
      Statement: [...trusting(caller.arn).Statement, ...trusting(caller.arn, 'Deny').Statement],
    };
    expect(trustDecision(denied, caller, 'sts:AssumeRole', {})).toBe('ExplicitDeny');
  });
});

describe('policy evaluation', () => {
  const allow = (Action: string | string[], Resource: string | string[]): PolicyDocument => ({
    Statement: [{ Effect: 'Allow', Action, Resource }],
  });

  it('denies implicitly when nothing allows', () => {
    expect(evaluate([], check('dynamodb:GetItem', table))).toBe('ImplicitDeny');
    expect(evaluate([allow('dynamodb:PutItem', table)], check('dynamodb:GetItem', table))).toBe(
      'ImplicitDeny',
    );
  });

  it('allows what a statement grants, with the grants CDK makes (table and /index/*)', () => {
    const policy = allow(['dynamodb:Query', 'dynamodb:GetItem'], [table, `${table}/index/*`]);
    expect(evaluate([policy], check('dynamodb:Query', `${table}/index/byDriver`))).toBe('Allow');
    expect(evaluate([policy], check('dynamodb:GetItem', table))).toBe('Allow');
    expect(evaluate([policy], check('dynamodb:Query', `${other}/index/byDriver`))).toBe('ImplicitDeny');
  });

  it('lets an explicit Deny win over any Allow', () => {
    const deny: PolicyDocument = { Statement: [{ Effect: 'Deny', Action: 'dynamodb:*', Resource: '*' }] };
    expect(evaluate([allow('dynamodb:GetItem', table), deny], check('dynamodb:GetItem', table))).toBe(
      'ExplicitDeny',
    );
  });

  it('matches actions case-insensitively with * and ?', () => {
    expect(actionMatches('dynamodb:Get*', 'dynamodb:GetItem')).toBe(true);
    expect(actionMatches('DYNAMODB:getitem', 'dynamodb:GetItem')).toBe(true);
    expect(actionMatches('sqs:?endMessage', 'sqs:SendMessage')).toBe(true);
    expect(actionMatches('sqs:Send*', 'sqs:ReceiveMessage')).toBe(false);
    expect(actionMatches('*', 's3:GetObject')).toBe(true);
  });

  it('matches resources case-sensitively; only a * ending an ARN segment crosses colons', () => {
    expect(arnMatches('arn:aws:s3:::exports/*', object)).toBe(true);
    expect(arnMatches('arn:aws:s3:::Exports/*', object)).toBe(false);
    expect(arnMatches('arn:aws:s3:::exports', object)).toBe(false);
    expect(arnMatches('arn:aws:sqs:*:*:imp?rts', queue)).toBe(true);
    expect(arnMatches('arn:aws:sqs:us-east-1:*', queue)).toBe(true);
    expect(arnMatches('arn:aws:sqs:us-east-1:0*s', queue)).toBe(false);
    expect(arnMatches('arn:aws:sqs:us-east-1:0*:imports', queue)).toBe(true);
    expect(arnMatches('*', queue)).toBe(true);
  });

  it('applies NotAction and NotResource', () => {
    const notAction: PolicyDocument = {
      Statement: [{ Effect: 'Allow', NotAction: 'dynamodb:Delete*', Resource: table }],
    };
    expect(evaluate([notAction], check('dynamodb:GetItem', table))).toBe('Allow');
    expect(evaluate([notAction], check('dynamodb:DeleteItem', table))).toBe('ImplicitDeny');
    const notResource: PolicyDocument = {
      Statement: [{ Effect: 'Deny', Action: 's3:*', NotResource: 'arn:aws:s3:::exports/public/*' }],
    };
    expect(evaluate([allow('s3:*', '*'), notResource], check('s3:GetObject', object))).toBe('ExplicitDeny');
    expect(
      evaluate([allow('s3:*', '*'), notResource], check('s3:GetObject', 'arn:aws:s3:::exports/public/x')),
    ).toBe('Allow');
  });

  it('evaluates the conditions a CDK app produces', () => {
    const enforceTls: PolicyDocument = {
      Statement: [
        {
          Effect: 'Deny',
          Action: 'sqs:*',
          Resource: '*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        },
      ],
    };
    const policies = [allow('sqs:*', '*'), enforceTls];
    expect(evaluate(policies, check('sqs:SendMessage', queue), { 'aws:SecureTransport': 'true' })).toBe(
      'Allow',
    );
    expect(evaluate(policies, check('sqs:SendMessage', queue), { 'aws:SecureTransport': 'false' })).toBe(
      'ExplicitDeny',
    );
    const inRegion: PolicyDocument = {
      Statement: [
        {
          Effect: 'Allow',
          Action: '*',
          Resource: '*',
          Condition: { StringEquals: { 'aws:RequestedRegion': ['us-east-1', 'eu-west-1'] } },
        },
      ],
    };
    expect(
      evaluate([inRegion], check('sqs:SendMessage', queue), { 'aws:RequestedRegion': 'us-east-1' }),
    ).toBe('Allow');
    expect(
      evaluate([inRegion], check('sqs:SendMessage', queue), { 'aws:RequestedRegion': 'us-west-2' }),
    ).toBe('ImplicitDeny');
    expect(evaluate([inRegion], check('sqs:SendMessage', queue), {})).toBe('ImplicitDeny');
  });

  it('refuses policies it cannot evaluate faithfully', () => {
    const withCondition = (Condition: Record<string, Record<string, string>>): PolicyDocument => ({
      Statement: [{ Effect: 'Deny', Action: '*', Resource: '*', Condition }],
    });
    expect(() =>
      validatePolicy(withCondition({ DateGreaterThan: { 'aws:CurrentTime': '2020-01-01' } })),
    ).toThrow(UnsupportedPolicyError);
    expect(() => validatePolicy(withCondition({ StringEquals: { 'dynamodb:LeadingKeys': 'x' } }))).toThrow(
      /dynamodb:LeadingKeys is not supported/,
    );
    expect(() => validatePolicy(allow('s3:GetObject', `arn:aws:s3:::b/${'${'}aws:username}/*`))).toThrow(
      /policy variables/,
    );
    expect(() => validatePolicy({ Statement: [{ Effect: 'Allow', Resource: '*' }] })).toThrow(/Action/);
    expect(() =>
      validatePolicy(withCondition({ BoolIfExists: { 'aws:SecureTransport': 'false' } })),
    ).not.toThrow();
  });
});

describe("the synthesized functions' roles", () => {
  const deployment = readDeployment(inject('assemblyDir'), {
    namePrefix: 'iam',
    awsEndpoint: 'http://127.0.0.1',
  });
  const [bucket] = deployment.buckets;
  const policiesOf = (entry: string) => {
    const fn = deployment.functions.find((candidate) => candidate.entry.endsWith(`${entry}/handler.ts`));
    const role = deployment.roles.find((candidate) => candidate.arn === fn?.roleArn);
    if (!role) throw new Error(`no role for ${entry}`);
    return role.policies;
  };
  const decisions = (entry: string, operations: [string, ReturnType<typeof s3Operation>][]) =>
    Object.fromEntries(
      operations.map(([name, { checks }]) => [name, checks.map((one) => evaluate(policiesOf(entry), one))]),
    );
  const request = (method: string, query = '') =>
    s3Operation({
      method,
      bucket: bucket?.name as string,
      key: 'analytics/acc/tx/route_analytics_1.csv',
      query: new URLSearchParams(query),
      headers: {},
    });

  it('let no function create API keys or put them in a usage plan (only the operator registers them)', () => {
    const calls = [
      apiGatewayChecks('POST', '/apikeys', scope),
      apiGatewayChecks('GET', '/apikeys', scope),
      apiGatewayChecks('POST', '/usageplans/plan01/keys', scope),
    ].flatMap(({ checks }) => checks);
    expect(deployment.functions.length).toBeGreaterThan(10);
    for (const fn of deployment.functions) {
      const role = deployment.roles.find((candidate) => candidate.arn === fn.roleArn);
      for (const one of calls) expect(evaluate(role?.policies ?? [], one), fn.entry).toBe('ImplicitDeny');
    }
  });

  it('let the export worker make every call of a streaming upload, aborting one included', () => {
    expect(
      decisions('workers/export-analytics', [
        ['CreateMultipartUpload', request('POST', 'uploads')],
        ['UploadPart', request('PUT', 'partNumber=1&uploadId=u')],
        ['CompleteMultipartUpload', request('POST', 'uploadId=u')],
        ['AbortMultipartUpload', request('DELETE', 'uploadId=u')],
      ]),
    ).toEqual({
      CreateMultipartUpload: ['Allow'],
      UploadPart: ['Allow'],
      CompleteMultipartUpload: ['Allow'],
      AbortMultipartUpload: ['Allow'],
    });
  });

  it('let the link signers do only what their links do, and only their functions assume them', () => {
    const signers = deployment.roles.filter((role) => role.trustedServices.length === 0);
    const functionRole = (entry: string) =>
      deployment.functions.find((candidate) => candidate.entry.endsWith(`${entry}/handler.ts`))
        ?.roleArn as string;
    const signerOf = (entry: string) =>
      signers.find((role) =>
        role.trustPolicy.Statement.some((statement) =>
          JSON.stringify(statement.Principal).includes(functionRole(entry)),
        ),
      );
    const download = signerOf('analytics/download-files');
    const upload = signerOf('routes/upload');
    expect(download && upload).toBeDefined();
    expect(new Set(signers)).toEqual(new Set([download, upload]));
    const object = (key: string) => `arn:aws:s3:::${bucket?.name}/${key}`;
    const decide = (policies: PolicyDocument[] | undefined, action: string, key: string) =>
      evaluate(policies ?? [], check(action, object(key)));
    expect(decide(download?.policies, 's3:GetObject', 'analytics/a/t/f.csv')).toBe('Allow');
    expect(decide(download?.policies, 's3:GetObject', 'uploads/a/t.json')).toBe('ImplicitDeny');
    expect(decide(download?.policies, 's3:PutObject', 'analytics/a/t/f.csv')).toBe('ImplicitDeny');
    expect(decide(upload?.policies, 's3:PutObject', 'uploads/a/t.json')).toBe('Allow');
    expect(decide(upload?.policies, 's3:PutObject', 'imports/a/t.json')).toBe('ImplicitDeny');
    expect(decide(upload?.policies, 's3:GetObject', 'uploads/a/t.json')).toBe('ImplicitDeny');
    const assume = (signer: typeof download) => check('sts:AssumeRole', signer?.arn as string);
    expect(evaluate(policiesOf('analytics/download-files'), assume(download))).toBe('Allow');
    expect(evaluate(policiesOf('analytics/download-files'), assume(upload))).toBe('ImplicitDeny');
    expect(evaluate(policiesOf('routes/upload'), assume(upload))).toBe('Allow');
    expect(evaluate(policiesOf('routes/import'), assume(upload))).toBe('ImplicitDeny');
    const caller = (entry: string) => ({ arn: functionRole(entry), accountId: deployment.accountId });
    const trusts = (signer: typeof download, entry: string) =>
      trustDecision(signer?.trustPolicy as PolicyDocument, caller(entry), 'sts:AssumeRole', {});
    expect(trusts(upload, 'routes/upload')).toBe('Allow');
    expect(trusts(upload, 'analytics/download-files')).toBe('ImplicitDeny');
    expect(trusts(download, 'analytics/download-files')).toBe('Allow');
  });

  it('let exactly webhook creation and rotation make webhook secrets, and only the delivery worker read them', () => {
    const keys = deployment.keys.filter((key) => key.logicalId.startsWith('WebhookSecretsKey'));
    expect(keys).toHaveLength(1);
    const key = keys[0]?.arn as string;
    const may = (action: string) =>
      deployment.functions
        .filter((fn) => {
          const role = deployment.roles.find((candidate) => candidate.arn === fn.roleArn);
          return evaluate(role?.policies ?? [], check(action, key)) === 'Allow';
        })
        .map((fn) => fn.entry.replace(/^functions\/(api\/)?|\/handler\.ts$/g, ''))
        .sort();
    expect(may('kms:GenerateDataKey')).toEqual(['webhooks/create', 'webhooks/rotate-secret']);
    expect(may('kms:Decrypt')).toEqual(['workers/deliver-webhooks']);
    expect(may('kms:Encrypt')).toEqual([]);
  });

  it('let no function delete or list what the bucket holds', () => {
    expect(
      decisions('workers/export-analytics', [
        ['DeleteObject', request('DELETE')],
        ['ListParts', request('GET', 'uploadId=u')],
      ]),
    ).toEqual({ DeleteObject: ['ImplicitDeny'], ListParts: ['ImplicitDeny'] });
  });
});
