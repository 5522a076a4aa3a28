import { describe, expect, it } from 'vitest';
import {
  type AuthorizationCheck,
  apiGatewayChecks,
  dynamodbChecks,
  kmsChecks,
  MalformedRequestError,
  sqsChecks,
  stsChecks,
  UnknownOperationError,
} from '../../local/iam/actions';
import { s3Operation } from '../../local/iam/s3-actions';
import { bucket, check, object, other, queue, queueUrl, scope, stream, table } from '../support/iam-requests';

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

  it('BatchExecuteStatement checks dynamodb:PartiQLInsert on the table of each INSERT of parameters', () => {
    const insert = (into: string) => ({
      Statement: `INSERT INTO ${into} VALUE {'pk': ?, 'sk' : ?}`,
      Parameters: [{ S: 'a' }, { S: 'b' }],
    });
    expect(
      dynamodbChecks(
        'DynamoDB_20120810.BatchExecuteStatement',
        { Statements: [insert('"routes"'), insert('other')] },
        scope,
      ),
    ).toEqual([check('dynamodb:PartiQLInsert', table), check('dynamodb:PartiQLInsert', other)]);
  });

  it.each([
    ['a SELECT', { Statement: `SELECT * FROM "routes" WHERE pk = ?`, Parameters: [{ S: 'a' }] }],
    ['an UPDATE', { Statement: `UPDATE "routes" SET n = 1 WHERE pk = 'a'` }],
    ['a DELETE', { Statement: `DELETE FROM "routes" WHERE pk = 'a' AND sk = 'b'` }],
    ['an INSERT of literal values', { Statement: `INSERT INTO "routes" VALUE {'pk': 'a', 'sk': 'b'}` }],
    [
      'an INSERT short of parameters',
      { Statement: `INSERT INTO "routes" VALUE {'pk': ?, 'sk': ?}`, Parameters: [{ S: 'a' }] },
    ],
    [
      'an INSERT naming an attribute twice',
      { Statement: `INSERT INTO "routes" VALUE {'pk': ?, 'pk': ?}`, Parameters: [{ S: 'a' }, { S: 'b' }] },
    ],
  ])('BatchExecuteStatement with %s is refused as unknown, the statement named', (_, statement) => {
    const statements = [
      { Statement: `INSERT INTO "routes" VALUE {'pk': ?}`, Parameters: [{ S: 'a' }] },
      statement,
    ];
    expect(() =>
      dynamodbChecks('DynamoDB_20120810.BatchExecuteStatement', { Statements: statements }, scope),
    ).toThrow(`BatchExecuteStatement statement ${JSON.stringify(statement.Statement)}`);
  });

  it('refuses what it does not know, and requests that name no table', () => {
    expect(() => dynamodbChecks('DynamoDB_20120810.ExecuteStatement', {}, scope)).toThrow(
      UnknownOperationError,
    );
    expect(() => dynamodbChecks('DynamoDB_20120810.ExecuteTransaction', {}, scope)).toThrow(
      UnknownOperationError,
    );
    expect(() => dynamodbChecks('DynamoDB_20120810.GetItem', {}, scope)).toThrow(MalformedRequestError);
    expect(() => dynamodbChecks('DynamoDB_20120810.BatchExecuteStatement', {}, scope)).toThrow(
      MalformedRequestError,
    );
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
  type Case = [string, ReturnType<typeof request>, AuthorizationCheck[]];
  /** A case whose request on `key` needs one action on `resource`. */
  const caseOn =
    (key: string, resource: string) =>
    (operation: string, method: string, query: string, action: string): Case => [
      operation,
      request(method, key, query),
      [check(action, resource)],
    ];
  const onObject = caseOn('analytics/a b.csv', object);
  const onBucket = caseOn('', bucket);
  const cases: Case[] = [
    onObject('GetObject', 'GET', 'x-id=GetObject', 's3:GetObject'),
    [
      'GetObject (presigned)',
      request(
        'GET',
        'analytics/a b.csv',
        'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=00&x-amz-checksum-mode=ENABLED&response-content-disposition=x',
      ),
      [check('s3:GetObject', object)],
    ],
    onObject('HeadObject', 'HEAD', '', 's3:GetObject'),
    onObject('PutObject', 'PUT', '', 's3:PutObject'),
    onObject('CreateMultipartUpload', 'POST', 'uploads', 's3:PutObject'),
    onObject('UploadPart', 'PUT', 'partNumber=1&uploadId=u', 's3:PutObject'),
    onObject('CompleteMultipartUpload', 'POST', 'uploadId=u', 's3:PutObject'),
    onObject('AbortMultipartUpload', 'DELETE', 'uploadId=u', 's3:AbortMultipartUpload'),
    onObject('ListParts', 'GET', 'uploadId=u', 's3:ListMultipartUploadParts'),
    onObject('DeleteObject', 'DELETE', '', 's3:DeleteObject'),
    [
      'CopyObject',
      request('PUT', 'analytics/a b.csv', '', { 'x-amz-copy-source': '/imports/in%20put.json' }),
      [check('s3:GetObject', 'arn:aws:s3:::imports/in put.json'), check('s3:PutObject', object)],
    ],
    onBucket('ListObjectsV2', 'GET', 'list-type=2&prefix=analytics%2F', 's3:ListBucket'),
    onBucket('HeadBucket', 'HEAD', '', 's3:ListBucket'),
    onBucket('CreateBucket', 'PUT', '', 's3:CreateBucket'),
    onBucket('DeleteBucket', 'DELETE', '', 's3:DeleteBucket'),
    onBucket('PutBucketNotificationConfiguration', 'PUT', 'notification', 's3:PutBucketNotification'),
    onBucket('ListMultipartUploads', 'GET', 'uploads', 's3:ListBucketMultipartUploads'),
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
