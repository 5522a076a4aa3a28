import { createHash, createHmac, type Hash, type Hmac, randomBytes, randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { DecryptCommand, EncryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import {
  ChangeMessageVisibilityBatchCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SignatureV4 } from '@smithy/signature-v4';
import type { SourceData } from '@smithy/types';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type AwsProxy, type Principal, startAwsProxy } from '../../local/aws-proxy/proxy';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, type PolicyDocument } from '../../local/cloud/model';
import { type RunningService, startDynamoDbLocal } from '../../local/services';

/**
 * The local AWS endpoint with real SDK v3 clients against real DynamoDB Local and fauxqs: callers are
 * identified by their signatures, authorized by their policies, and get AWS's errors and limits.
 */
const run = randomUUID().slice(0, 8);
const names = {
  table: `proxy-${run}`,
  otherTable: `proxy-${run}-other`,
  queue: `proxy-${run}`,
  otherQueue: `proxy-${run}-other`,
  smallQueue: `proxy-${run}-small`,
  bucket: `proxy-${run}`,
};
const tableArn = (name: string) => `arn:aws:dynamodb:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:table/${name}`;
const queueArn = (name: string) => `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${name}`;
const bucketArn = `arn:aws:s3:::${names.bucket}`;

let dynamodbLocal: RunningService;
let proxy: AwsProxy;
let admin: Clients;
let queueUrl: string;
let otherQueueUrl: string;
let smallQueueUrl: string;
let streamArn: string;
const clients: Clients[] = [];

interface Clients {
  principal: Principal;
  dynamodb: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  sqs: SQSClient;
  s3: S3Client;
}

function principal(name: string, policies: Principal['policies'], extra: Partial<Principal> = {}): Principal {
  return {
    accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(20).toString('base64'),
    arn: `arn:aws:sts::${LOCAL_ACCOUNT_ID}:assumed-role/${name}-role/${name}`,
    policies,
    ...extra,
  };
}

/** SDK clients configured as functions' are locally, signing with `credentials`. */
function clientsFor(who: Principal, credentials: Partial<Principal> = {}): Clients {
  const config = {
    endpoint: proxy.endpoint,
    region: LOCAL_REGION,
    maxAttempts: 1,
    credentials: {
      accessKeyId: credentials.accessKeyId ?? who.accessKeyId,
      secretAccessKey: credentials.secretAccessKey ?? who.secretAccessKey,
      sessionToken: 'sessionToken' in credentials ? credentials.sessionToken : who.sessionToken,
    },
  };
  const made = {
    principal: who,
    dynamodb: new DynamoDBClient(config),
    streams: new DynamoDBStreamsClient(config),
    sqs: new SQSClient({ ...config, useQueueUrlAsEndpoint: false }),
    s3: new S3Client({ ...config, forcePathStyle: true }),
  };
  clients.push(made);
  return made;
}

/** What CDK grants a function that reads and writes the table, reads the bucket and sends to one queue. */
function functionPolicy(): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: [
          'dynamodb:BatchGetItem',
          'dynamodb:Query',
          'dynamodb:GetItem',
          'dynamodb:Scan',
          'dynamodb:ConditionCheckItem',
          'dynamodb:BatchWriteItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:DescribeTable',
        ],
        Resource: [tableArn(names.table), `${tableArn(names.table)}/index/*`],
      },
      { Effect: 'Allow', Action: 's3:GetObject', Resource: `${bucketArn}/*` },
      {
        Effect: 'Allow',
        Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
        Resource: queueArn(names.queue),
      },
    ],
  };
}

/** The error a promise rejects with (fails the test if it resolves). */
async function failure(
  promise: Promise<unknown>,
): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail');
}

const key = (pk: string) => ({ pk: { S: pk }, sk: { S: 'item' } });

beforeAll(async () => {
  dynamodbLocal = await startDynamoDbLocal();
  proxy = await startAwsProxy({
    dynamodbEndpoint: dynamodbLocal.endpoint,
    awsEndpoint: inject('awsEndpoint'),
  });
  const operator = principal('operator', 'admin');
  proxy.addPrincipal(operator);
  admin = clientsFor(operator);
  for (const table of [names.table, names.otherTable]) {
    await admin.dynamodb.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
          { AttributeName: 'gpk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: 'byGpk',
            KeySchema: [{ AttributeName: 'gpk', KeyType: 'HASH' }],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
      }),
    );
  }
  const described = await admin.dynamodb.send(new DescribeTableCommand({ TableName: names.table }));
  streamArn = described.Table?.LatestStreamArn as string;
  queueUrl = (await admin.sqs.send(new CreateQueueCommand({ QueueName: names.queue }))).QueueUrl as string;
  otherQueueUrl = (await admin.sqs.send(new CreateQueueCommand({ QueueName: names.otherQueue })))
    .QueueUrl as string;
  smallQueueUrl = (
    await admin.sqs.send(
      new CreateQueueCommand({ QueueName: names.smallQueue, Attributes: { MaximumMessageSize: '1024' } }),
    )
  ).QueueUrl as string;
  await admin.s3.send(new CreateBucketCommand({ Bucket: names.bucket }));
  await admin.s3.send(
    new PutObjectCommand({ Bucket: names.bucket, Key: 'reports/a b.csv', Body: 'id,name\n1,x\n' }),
  );
});

afterAll(async () => {
  for (const table of [names.table, names.otherTable]) {
    await admin?.dynamodb.send(new DeleteTableCommand({ TableName: table })).catch(() => {});
  }
  for (const made of clients) {
    made.dynamodb.destroy();
    made.streams.destroy();
    made.sqs.destroy();
    made.s3.destroy();
  }
  await proxy?.close();
  await dynamodbLocal?.stop();
});

describe('identity and policies', () => {
  it('shows the resources AWS-shaped: queue URLs on the proxy, ARNs in the request Region', async () => {
    expect(queueUrl).toBe(`${proxy.endpoint}/${LOCAL_ACCOUNT_ID}/${names.queue}`);
    expect(streamArn).toMatch(new RegExp(`^${tableArn(names.table)}/stream/`));
    const described = await admin.dynamodb.send(new DescribeTableCommand({ TableName: names.table }));
    expect(described.Table?.TableArn).toBe(tableArn(names.table));
  });

  it('allows a function what its CDK-shaped policy grants', async () => {
    const fn = principal('reader', [functionPolicy()]);
    proxy.addPrincipal(fn);
    const { dynamodb, sqs, s3 } = clientsFor(fn);
    await dynamodb.send(
      new PutItemCommand({ TableName: names.table, Item: { ...key('a'), gpk: { S: 'g' } } }),
    );
    const got = await dynamodb.send(new GetItemCommand({ TableName: names.table, Key: key('a') }));
    expect(got.Item?.gpk?.S).toBe('g');
    const byIndex = await dynamodb.send(
      new QueryCommand({
        TableName: names.table,
        IndexName: 'byGpk',
        KeyConditionExpression: 'gpk = :g',
        ExpressionAttributeValues: { ':g': { S: 'g' } },
      }),
    );
    expect(byIndex.Count).toBe(1);
    await dynamodb.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: names.table,
              Key: key('a'),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          { Put: { TableName: names.table, Item: key('b') } },
        ],
      }),
    );
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'hello' }));
    const object = await s3.send(new GetObjectCommand({ Bucket: names.bucket, Key: 'reports/a b.csv' }));
    expect(await object.Body?.transformToString()).toBe('id,name\n1,x\n');
  });

  it('denies everything else with each service error AWS gives', async () => {
    const fn = principal('denied', [functionPolicy()]);
    proxy.addPrincipal(fn);
    const { dynamodb, sqs, s3 } = clientsFor(fn);

    const deleteTable = await failure(dynamodb.send(new DeleteTableCommand({ TableName: names.table })));
    expect(deleteTable.name).toBe('AccessDeniedException');
    expect(deleteTable.$metadata?.httpStatusCode).toBe(400);
    expect(deleteTable.message).toBe(
      `User: ${fn.arn} is not authorized to perform: dynamodb:DeleteTable on resource: ${tableArn(names.table)} because no identity-based policy allows the dynamodb:DeleteTable action`,
    );
    expect((await failure(dynamodb.send(new ListTablesCommand({})))).name).toBe('AccessDeniedException');
    const otherTable = await failure(
      dynamodb.send(new GetItemCommand({ TableName: names.otherTable, Key: key('a') })),
    );
    expect(otherTable.message).toContain(`dynamodb:GetItem on resource: ${tableArn(names.otherTable)}`);
    const otherIndex = await failure(
      dynamodb.send(
        new QueryCommand({
          TableName: names.otherTable,
          IndexName: 'byGpk',
          KeyConditionExpression: 'gpk = :g',
          ExpressionAttributeValues: { ':g': { S: 'g' } },
        }),
      ),
    );
    expect(otherIndex.message).toContain(`on resource: ${tableArn(names.otherTable)}/index/byGpk`);
    const transaction = await failure(
      dynamodb.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: names.table, Item: key('c') } },
            { Delete: { TableName: names.otherTable, Key: key('c') } },
          ],
        }),
      ),
    );
    expect(transaction.message).toContain(`dynamodb:DeleteItem on resource: ${tableArn(names.otherTable)}`);
    // Nothing of a denied transaction is written.
    const notWritten = await admin.dynamodb.send(
      new GetItemCommand({ TableName: names.table, Key: key('c') }),
    );
    expect(notWritten.Item).toBeUndefined();

    const receive = await failure(sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl })));
    expect(receive.name).toBe('AccessDenied');
    expect(receive.$metadata?.httpStatusCode).toBe(403);
    expect(receive.message).toBe(
      `User: ${fn.arn} is not authorized to perform: sqs:receivemessage on resource: ${queueArn(names.queue)} because no identity-based policy allows the sqs:receivemessage action`,
    );
    const otherQueue = await failure(
      sqs.send(new SendMessageCommand({ QueueUrl: otherQueueUrl, MessageBody: 'x' })),
    );
    expect(otherQueue.name).toBe('AccessDenied');
    const batch = await failure(
      sqs.send(
        new SendMessageBatchCommand({ QueueUrl: otherQueueUrl, Entries: [{ Id: '1', MessageBody: 'x' }] }),
      ),
    );
    expect(batch.message).toContain('sqs:sendmessage on resource');

    const put = await failure(
      s3.send(new PutObjectCommand({ Bucket: names.bucket, Key: 'x.txt', Body: 'x' })),
    );
    expect(put.name).toBe('AccessDenied');
    expect(put.$metadata?.httpStatusCode).toBe(403);
    expect(put.message).toBe(
      `User: ${fn.arn} is not authorized to perform: s3:PutObject on resource: "${bucketArn}/x.txt" because no identity-based policy allows the s3:PutObject action`,
    );
    const list = await failure(s3.send(new ListObjectsV2Command({ Bucket: names.bucket })));
    expect(list.name).toBe('AccessDenied');
    expect(list.message).toContain(`s3:ListBucket on resource: "${bucketArn}"`);
  });

  it('allows a call while the grant is there and denies it once the grant is removed', async () => {
    const fn = principal('changing', [functionPolicy()]);
    proxy.addPrincipal(fn);
    const { dynamodb } = clientsFor(fn);
    await dynamodb.send(new GetItemCommand({ TableName: names.table, Key: key('a') }));
    const withoutDynamoDb = functionPolicy();
    withoutDynamoDb.Statement = withoutDynamoDb.Statement.slice(1);
    proxy.addPrincipal({ ...fn, policies: [withoutDynamoDb] });
    const denied = await failure(
      dynamodb.send(new GetItemCommand({ TableName: names.table, Key: key('a') })),
    );
    expect(denied.name).toBe('AccessDeniedException');
  });

  it('lets an explicit Deny win over an Allow', async () => {
    const deny: PolicyDocument = {
      Statement: [{ Effect: 'Deny', Action: 'dynamodb:Get*', Resource: tableArn(names.table) }],
    };
    const fn = principal('explicit', [functionPolicy(), deny]);
    proxy.addPrincipal(fn);
    const denied = await failure(
      clientsFor(fn).dynamodb.send(new GetItemCommand({ TableName: names.table, Key: key('a') })),
    );
    expect(denied.message).toBe(
      `User: ${fn.arn} is not authorized to perform: dynamodb:GetItem on resource: ${tableArn(names.table)} with an explicit deny in an identity-based policy`,
    );
  });

  it('authorizes stream reads on the stream ARN', async () => {
    const reader = principal('stream-reader', [
      {
        Statement: [
          {
            Effect: 'Allow',
            Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
            Resource: streamArn,
          },
        ],
      },
    ]);
    proxy.addPrincipal(reader);
    const { streams } = clientsFor(reader);
    const stream = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    const shardId = stream.StreamDescription?.Shards?.[0]?.ShardId as string;
    const iterator = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    const records = await streams.send(new GetRecordsCommand({ ShardIterator: iterator.ShardIterator }));
    expect(records.Records?.length).toBeGreaterThan(0);

    const stranger = principal('stranger', [functionPolicy()]);
    proxy.addPrincipal(stranger);
    const denied = await failure(
      clientsFor(stranger).streams.send(new GetRecordsCommand({ ShardIterator: iterator.ShardIterator })),
    );
    expect(denied.name).toBe('AccessDeniedException');
    expect(denied.message).toContain(`dynamodb:GetRecords on resource: ${streamArn}`);
  });

  it('refuses an operation it cannot map to IAM permissions', async () => {
    const fn = principal('unknown-op', [{ Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] }]);
    proxy.addPrincipal(fn);
    const response = await fetch(
      `${proxy.endpoint}/`,
      await signedDynamoDbRequest(fn, 'ExecuteStatement', {}),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      __type: 'com.amazon.coral.service#AccessDeniedException',
      Message: expect.stringContaining('ExecuteStatement'),
    });
  });
});

const bytes = (data: SourceData): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

/** SHA-256 (or HMAC-SHA-256 with a secret) in the shape the SDK's signer takes. */
class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

/** A DynamoDB call signed by hand with the SDK's signer, for what SDK clients cannot send. */
async function signedDynamoDbRequest(who: Principal, operation: string, input: object): Promise<RequestInit> {
  const url = new URL(proxy.endpoint);
  const signer = new SignatureV4({
    service: 'dynamodb',
    region: LOCAL_REGION,
    credentials: { accessKeyId: who.accessKeyId, secretAccessKey: who.secretAccessKey },
    sha256: Sha256,
  });
  const body = JSON.stringify(input);
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: '/',
    headers: {
      host: url.host,
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `DynamoDB_20120810.${operation}`,
    },
    body,
  });
  return { method: 'POST', headers: signed.headers, body };
}

describe('authentication', () => {
  it('refuses an unknown access key as each service does', async () => {
    const unknown = principal('nobody', 'admin');
    const { dynamodb, sqs, s3 } = clientsFor(unknown);
    expect((await failure(dynamodb.send(new ListTablesCommand({})))).name).toBe(
      'UnrecognizedClientException',
    );
    const sqsError = await failure(sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl })));
    expect(sqsError.name).toBe('InvalidClientTokenId');
    expect(sqsError.$metadata?.httpStatusCode).toBe(403);
    const s3Error = await failure(
      s3.send(new GetObjectCommand({ Bucket: names.bucket, Key: 'reports/a b.csv' })),
    );
    expect(s3Error.name).toBe('InvalidAccessKeyId');
  });

  it('refuses a wrong secret as a signature mismatch', async () => {
    const fn = principal('wrong-secret', 'admin');
    proxy.addPrincipal(fn);
    const { dynamodb, sqs, s3 } = clientsFor(fn, { secretAccessKey: 'not-the-secret' });
    expect((await failure(dynamodb.send(new ListTablesCommand({})))).name).toBe('InvalidSignatureException');
    expect((await failure(sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl })))).name).toBe(
      'SignatureDoesNotMatch',
    );
    expect(
      (await failure(s3.send(new GetObjectCommand({ Bucket: names.bucket, Key: 'reports/a b.csv' })))).name,
    ).toBe('SignatureDoesNotMatch');
  });

  it('refuses expired credentials and wrong session tokens', async () => {
    const expired = principal('expired', 'admin', { sessionToken: 'token-1', expiresAt: Date.now() - 1000 });
    proxy.addPrincipal(expired);
    const late = clientsFor(expired);
    expect((await failure(late.dynamodb.send(new ListTablesCommand({})))).name).toBe('ExpiredTokenException');
    expect((await failure(late.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl })))).name).toBe(
      'ExpiredToken',
    );
    expect(
      (await failure(late.s3.send(new GetObjectCommand({ Bucket: names.bucket, Key: 'reports/a b.csv' }))))
        .name,
    ).toBe('ExpiredToken');

    const current = principal('token', 'admin', { sessionToken: 'token-2', expiresAt: Date.now() + 60_000 });
    proxy.addPrincipal(current);
    await clientsFor(current).dynamodb.send(new ListTablesCommand({}));
    const wrongToken = clientsFor(current, { sessionToken: 'token-3' });
    expect((await failure(wrongToken.dynamodb.send(new ListTablesCommand({})))).name).toBe(
      'UnrecognizedClientException',
    );
    expect(
      (
        await failure(
          wrongToken.s3.send(new GetObjectCommand({ Bucket: names.bucket, Key: 'reports/a b.csv' })),
        )
      ).name,
    ).toBe('InvalidToken');
  });

  it('refuses unsigned requests', async () => {
    const dynamodb = await fetch(`${proxy.endpoint}/`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'DynamoDB_20120810.ListTables',
      },
      body: '{}',
    });
    expect(dynamodb.status).toBe(400);
    expect(((await dynamodb.json()) as { __type: string }).__type).toBe(
      'com.amazon.coral.service#MissingAuthenticationTokenException',
    );
    const sqs = await fetch(`${proxy.endpoint}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ListQueues' },
      body: '{}',
    });
    expect(sqs.status).toBe(403);
    expect(sqs.headers.get('x-amzn-query-error')).toBe('MissingAuthenticationToken;Sender');
    const s3 = await fetch(`${proxy.endpoint}/${names.bucket}/reports/a%20b.csv`);
    expect(s3.status).toBe(403);
    expect(await s3.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('serves a presigned GET, and refuses it expired or tampered with', async () => {
    const fn = principal('presigner', [functionPolicy()]);
    proxy.addPrincipal(fn);
    const { s3 } = clientsFor(fn);
    const command = new GetObjectCommand({
      Bucket: names.bucket,
      Key: 'reports/a b.csv',
      ResponseContentDisposition: 'attachment; filename="a b.csv"',
    });
    const link = await getSignedUrl(s3, command, { expiresIn: 60 });
    const ok = await fetch(link);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('id,name\n1,x\n');

    const old = await getSignedUrl(s3, command, {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 120_000),
    });
    const expired = await fetch(old);
    expect(expired.status).toBe(403);
    const expiredBody = await expired.text();
    expect(expiredBody).toContain('<Code>AccessDenied</Code>');
    expect(expiredBody).toContain('Request has expired');

    const tampered = await fetch(link.replace('a%20b.csv', 'a%20c.csv'));
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toContain('<Code>SignatureDoesNotMatch</Code>');

    proxy.addPrincipal({ ...fn, expiresAt: Date.now() - 1 });
    const afterCredentialsExpired = await fetch(link);
    expect(afterCredentialsExpired.status).toBe(400);
    expect(await afterCredentialsExpired.text()).toContain('<Code>ExpiredToken</Code>');
  });

  it('refuses an S3 body that is not the one signed, storing nothing', async () => {
    const url = new URL(`${proxy.endpoint}/${names.bucket}/tampered.txt`);
    const signer = new SignatureV4({
      service: 's3',
      region: LOCAL_REGION,
      credentials: {
        accessKeyId: admin.principal.accessKeyId,
        secretAccessKey: admin.principal.secretAccessKey,
      },
      sha256: Sha256,
      uriEscapePath: false,
    });
    const signed = await signer.sign({
      method: 'PUT',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      headers: { host: url.host, 'content-type': 'text/plain' },
      body: 'signed body',
    });
    const response = await fetch(url, { method: 'PUT', headers: signed.headers, body: 'other body!' });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
    const missing = await failure(
      admin.s3.send(new GetObjectCommand({ Bucket: names.bucket, Key: 'tampered.txt' })),
    );
    expect(missing.name).toBe('NoSuchKey');
  });
});

describe('STS AssumeRole', () => {
  const signerName = `proxy-${run}-signer`;
  const signerArn = `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/${signerName}`;
  /** The role ARN of a `principal(name)`'s session. */
  const roleOf = (name: string) => `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/${name}-role`;
  const mayAssume: PolicyDocument = {
    Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Resource: signerArn }],
  };
  const stsClients: STSClient[] = [];
  const stsFor = (who: Principal) => {
    const client = new STSClient({
      endpoint: proxy.endpoint,
      region: LOCAL_REGION,
      maxAttempts: 1,
      credentials: {
        accessKeyId: who.accessKeyId,
        secretAccessKey: who.secretAccessKey,
        sessionToken: who.sessionToken,
      },
    });
    stsClients.push(client);
    return client;
  };
  const assume = (who: Principal, DurationSeconds = 900) =>
    stsFor(who).send(
      new AssumeRoleCommand({ RoleArn: signerArn, RoleSessionName: 'links', DurationSeconds }),
    );

  beforeAll(() => {
    proxy.addRole({
      name: signerName,
      arn: signerArn,
      policies: [
        { Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: `${bucketArn}/reports/*` }] },
      ],
      trustPolicy: {
        Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { AWS: roleOf('link-maker') } }],
      },
    });
  });

  afterAll(() => {
    for (const client of stsClients) client.destroy();
  });

  it("issues credentials that may do what the role's policies allow, until they expire", async () => {
    const caller = principal('link-maker', [mayAssume]);
    proxy.addPrincipal(caller);
    const before = Date.now();
    const { Credentials, AssumedRoleUser } = await assume(caller);
    expect(AssumedRoleUser?.Arn).toBe(`arn:aws:sts::${LOCAL_ACCOUNT_ID}:assumed-role/${signerName}/links`);
    const expiration = Credentials?.Expiration?.getTime() as number;
    expect(expiration).toBeGreaterThanOrEqual(before + 900_000);
    expect(expiration).toBeLessThanOrEqual(Date.now() + 900_000);
    const issued = proxy.principalOf(Credentials?.AccessKeyId as string);
    expect(issued?.expiresAt).toBe(expiration);

    const session = clientsFor(issued as Principal);
    const read = await session.s3.send(
      new GetObjectCommand({ Bucket: names.bucket, Key: 'reports/a b.csv' }),
    );
    expect(await read.Body?.transformToString()).toBe('id,name\n1,x\n');
    const write = await failure(
      session.s3.send(new PutObjectCommand({ Bucket: names.bucket, Key: 'reports/new.csv', Body: 'x' })),
    );
    expect(write.name).toBe('AccessDenied');
    // The caller's own policies are not the session's.
    expect((await failure(session.dynamodb.send(new ListTablesCommand({})))).name).toBe(
      'AccessDeniedException',
    );
  });

  it('denies a caller the trust policy names but whose policies do not allow sts:AssumeRole on the role', async () => {
    const caller = principal('link-maker', [
      { Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Resource: `${signerArn}-other` }] },
    ]);
    proxy.addPrincipal(caller);
    const denied = await failure(assume(caller));
    expect(denied.name).toBe('AccessDenied');
    expect(denied.$metadata?.httpStatusCode).toBe(403);
    expect(denied.message).toBe(
      `User: ${caller.arn} is not authorized to perform: sts:AssumeRole on resource: ${signerArn} because no identity-based policy allows the sts:AssumeRole action`,
    );
  });

  it('denies a caller whose policies allow it but whom the trust policy does not name', async () => {
    const caller = principal('stranger', [mayAssume]);
    proxy.addPrincipal(caller);
    const denied = await failure(assume(caller));
    expect(denied.name).toBe('AccessDenied');
    expect(denied.$metadata?.httpStatusCode).toBe(403);
    expect(denied.message).toContain(
      `is not authorized to perform: sts:AssumeRole on resource: ${signerArn}`,
    );
  });

  it('refuses a session longer than role chaining allows, and expired credentials', async () => {
    const caller = principal('link-maker', [mayAssume]);
    proxy.addPrincipal(caller);
    const tooLong = await failure(assume(caller, 7200));
    expect(tooLong.name).toBe('ValidationError');
    expect(tooLong.$metadata?.httpStatusCode).toBe(400);

    proxy.addPrincipal({ ...caller, expiresAt: Date.now() - 1 });
    const expired = await failure(assume(caller));
    expect(expired.name).toBe('ExpiredToken');
    expect(expired.$metadata?.httpStatusCode).toBe(400);
  });
});

describe('KMS through the proxy', () => {
  const keyArn = `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:key/${randomUUID()}`;
  const otherKeyArn = `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:key/${randomUUID()}`;
  const keySpec = (arn: string, enabled = true) => ({
    logicalId: 'Key',
    stackPath: 'Stack',
    keyId: arn.split('/')[1] as string,
    arn,
    keySpec: 'SYMMETRIC_DEFAULT',
    keyUsage: 'ENCRYPT_DECRYPT',
    enabled,
  });
  const context = { account_id: 'acc_1', webhook_id: 'wh_1' };
  const kmsClients: KMSClient[] = [];
  /** A KMS client as functions have one locally, signing as a principal with these policies. */
  const kmsFor = (policies: Principal['policies'], name = 'kms-user') => {
    const who = principal(name, policies);
    proxy.addPrincipal(who);
    const client = new KMSClient({
      endpoint: proxy.endpoint,
      region: LOCAL_REGION,
      maxAttempts: 1,
      credentials: { accessKeyId: who.accessKeyId, secretAccessKey: who.secretAccessKey },
    });
    kmsClients.push(client);
    return { who, client };
  };
  const allow = (action: string, resource = keyArn): PolicyDocument => ({
    Statement: [{ Effect: 'Allow', Action: action, Resource: resource }],
  });
  let both: KMSClient;

  beforeAll(() => {
    proxy.configureKeys([keySpec(keyArn), keySpec(otherKeyArn)]);
    both = kmsFor([allow('kms:GenerateDataKey'), allow('kms:Decrypt'), allow('kms:*', otherKeyArn)]).client;
  });

  afterAll(() => {
    for (const client of kmsClients) client.destroy();
  });

  const generate = (client = both, EncryptionContext: Record<string, string> = context, KeyId = keyArn) =>
    client.send(new GenerateDataKeyCommand({ KeyId, KeySpec: 'AES_256', EncryptionContext }));

  it('generates a 256-bit data key that Decrypt gives back under the same encryption context, in any order', async () => {
    const generated = await generate();
    expect(generated.KeyId).toBe(keyArn);
    expect(generated.Plaintext).toHaveLength(32);
    const blob = generated.CiphertextBlob as Uint8Array;
    // The blob does not carry the data key in the clear.
    expect(Buffer.from(blob).includes(Buffer.from(generated.Plaintext as Uint8Array))).toBe(false);
    const reordered = { webhook_id: 'wh_1', account_id: 'acc_1' };
    const decrypted = await both.send(
      new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: reordered, KeyId: keyArn }),
    );
    expect(Buffer.from(decrypted.Plaintext as Uint8Array)).toEqual(
      Buffer.from(generated.Plaintext as Uint8Array),
    );
    expect(decrypted.KeyId).toBe(keyArn);
    // By key id as well as by ARN; NumberOfBytes instead of KeySpec.
    const byId = await both.send(
      new GenerateDataKeyCommand({ KeyId: keyArn.split('/')[1], NumberOfBytes: 16 }),
    );
    expect(byId.Plaintext).toHaveLength(16);
  });

  it('refuses Decrypt under any other encryption context, as KMS does, with InvalidCiphertextException', async () => {
    const blob = (await generate()).CiphertextBlob as Uint8Array;
    const others: Record<string, string>[] = [
      { account_id: 'acc_1', webhook_id: 'wh_2' },
      { account_id: 'acc_2', webhook_id: 'wh_1' },
      { account_id: 'acc_1' },
      { ...context, extra: 'x' },
      { account_id: 'ACC_1', webhook_id: 'wh_1' },
      {},
    ];
    for (const EncryptionContext of others) {
      const refused = await failure(
        both.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext })),
      );
      expect(refused.name, JSON.stringify(EncryptionContext)).toBe('InvalidCiphertextException');
      expect(refused.$metadata?.httpStatusCode).toBe(400);
    }
    // A blob made without a context opens only without one.
    const bare = (await generate(both, {})).CiphertextBlob as Uint8Array;
    expect((await both.send(new DecryptCommand({ CiphertextBlob: bare }))).Plaintext).toHaveLength(32);
    expect(
      (await failure(both.send(new DecryptCommand({ CiphertextBlob: bare, EncryptionContext: context }))))
        .name,
    ).toBe('InvalidCiphertextException');
  });

  it('refuses a tampered blob, another key named in KeyId, a key not in the deployment, and a disabled key', async () => {
    const blob = Buffer.from((await generate()).CiphertextBlob as Uint8Array);
    const tampered = Buffer.from(blob);
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 1;
    expect(
      (await failure(both.send(new DecryptCommand({ CiphertextBlob: tampered, EncryptionContext: context }))))
        .name,
    ).toBe('InvalidCiphertextException');
    expect(
      (
        await failure(
          both.send(new DecryptCommand({ CiphertextBlob: randomBytes(64), EncryptionContext: context })),
        )
      ).name,
    ).toBe('InvalidCiphertextException');
    const wrongKey = await failure(
      both.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context, KeyId: otherKeyArn })),
    );
    expect(wrongKey.name).toBe('IncorrectKeyException');
    const unknown = `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:key/${randomUUID()}`;
    expect((await failure(generate(both, context, unknown))).name).toBe('NotFoundException');
    expect((await failure(generate(both, context, 'alias/secrets'))).name).toBe('NotFoundException');
    proxy.configureKeys([keySpec(keyArn, false), keySpec(otherKeyArn)]);
    try {
      expect((await failure(generate())).name).toBe('DisabledException');
    } finally {
      proxy.configureKeys([keySpec(keyArn), keySpec(otherKeyArn)]);
    }
  });

  it("does not open another runtime's ciphertexts: each runtime has its own master key", async () => {
    const blob = (await generate()).CiphertextBlob as Uint8Array;
    const other = await startAwsProxy({
      dynamodbEndpoint: dynamodbLocal.endpoint,
      awsEndpoint: inject('awsEndpoint'),
    });
    try {
      other.configureKeys([keySpec(keyArn)]);
      const operator = principal('other-operator', 'admin');
      other.addPrincipal(operator);
      const client = new KMSClient({
        endpoint: other.endpoint,
        region: LOCAL_REGION,
        maxAttempts: 1,
        credentials: { accessKeyId: operator.accessKeyId, secretAccessKey: operator.secretAccessKey },
      });
      try {
        const refused = await failure(
          client.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context })),
        );
        expect(refused.name).toBe('InvalidCiphertextException');
      } finally {
        client.destroy();
      }
    } finally {
      await other.close();
    }
  });

  it("checks each call against the caller's policies on the key's ARN: AccessDeniedException otherwise", async () => {
    const blob = (await generate()).CiphertextBlob as Uint8Array;
    const encryptOnly = kmsFor([allow('kms:GenerateDataKey')], 'sealer');
    const decryptOnly = kmsFor([allow('kms:Decrypt')], 'opener');
    const otherKeyOnly = kmsFor([
      allow('kms:Decrypt', otherKeyArn),
      allow('kms:GenerateDataKey', otherKeyArn),
    ]);

    expect((await generate(encryptOnly.client)).Plaintext).toHaveLength(32);
    const cannotDecrypt = await failure(
      encryptOnly.client.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context })),
    );
    expect(cannotDecrypt.name).toBe('AccessDeniedException');
    expect(cannotDecrypt.$metadata?.httpStatusCode).toBe(400);
    expect(cannotDecrypt.message).toBe(
      `User: ${encryptOnly.who.arn} is not authorized to perform: kms:Decrypt on resource: ${keyArn} because no identity-based policy allows the kms:Decrypt action`,
    );

    const opened = await decryptOnly.client.send(
      new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context }),
    );
    expect(opened.Plaintext).toHaveLength(32);
    expect((await failure(generate(decryptOnly.client))).name).toBe('AccessDeniedException');

    // A grant on another key is no grant on this one; Decrypt is authorized on the blob's key.
    expect((await failure(generate(otherKeyOnly.client))).name).toBe('AccessDeniedException');
    expect(
      (
        await failure(
          otherKeyOnly.client.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context })),
        )
      ).name,
    ).toBe('AccessDeniedException');

    // An operation the proxy does not serve is refused, not let through.
    const encrypt = await failure(
      both.send(new EncryptCommand({ KeyId: keyArn, Plaintext: Buffer.from('secret') })),
    );
    expect(encrypt.name).toBe('UnknownOperationException');
  });
});

describe('SQS through the proxy', () => {
  const receiveAll = async (url: string, expected: number): Promise<Message[]> => {
    const messages: Message[] = [];
    for (let attempt = 0; attempt < 10 && messages.length < expected; attempt++) {
      const { Messages = [] } = await admin.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      messages.push(...Messages);
    }
    if (messages.length > 0) {
      await admin.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: messages.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
          })),
        }),
      );
    }
    return messages;
  };

  it('carries emoji and every other valid character intact (fauxqs alone refuses them)', async () => {
    const { QueueUrl } = await admin.sqs.send(new CreateQueueCommand({ QueueName: `proxy-${run}-emoji` }));
    const bodies = [
      'route done 🚚✅',
      'plain',
      '\uE000 starts with the escape mark 😀',
      '𝄞 music \uE000\uE000 𝄞',
    ];
    await admin.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: bodies[0] }));
    await admin.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: bodies.slice(1).map((body, index) => ({ Id: `m${index}`, MessageBody: body })),
      }),
    );
    const received = await receiveAll(QueueUrl as string, bodies.length);
    expect(received.map((message) => message.Body).sort()).toEqual([...bodies].sort());
  });

  it('keeps a message that fits AWS but not fauxqs once escaped, attributes included', async () => {
    const body = `${'😀'.repeat(200)}${'x'.repeat(1024 - 800 - 15)}`;
    const attributes = { kind: { DataType: 'String', StringValue: 'emoji' } };
    await admin.sqs.send(
      new SendMessageCommand({ QueueUrl: smallQueueUrl, MessageBody: body, MessageAttributes: attributes }),
    );
    const { Messages = [] } = await admin.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: smallQueueUrl,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
      }),
    );
    expect(Messages[0]?.Body).toBe(body);
    expect(Messages[0]?.MessageAttributes?.kind?.StringValue).toBe('emoji');
    await admin.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: smallQueueUrl,
        Entries: [{ Id: '0', ReceiptHandle: Messages[0]?.ReceiptHandle }],
      }),
    );
  });

  it('returns message attributes only when asked for, as AWS does', async () => {
    const { QueueUrl } = await admin.sqs.send(
      new CreateQueueCommand({ QueueName: `proxy-${run}-attributes` }),
    );
    await admin.sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: 'x',
        MessageAttributes: { trace: { DataType: 'String', StringValue: 't' } },
      }),
    );
    const { Messages = [] } = await admin.sqs.send(
      new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }),
    );
    expect(Messages[0]?.Body).toBe('x');
    expect(Messages[0]?.MessageAttributes).toBeUndefined();
  });

  it("refuses a message over the queue's MaximumMessageSize, counting attributes", async () => {
    const tooLong = await failure(
      admin.sqs.send(new SendMessageCommand({ QueueUrl: smallQueueUrl, MessageBody: 'x'.repeat(1025) })),
    );
    expect(tooLong.name).toBe('InvalidParameterValue');
    expect(tooLong.message).toBe(
      'One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes.',
    );
    const withAttributes = await failure(
      admin.sqs.send(
        new SendMessageCommand({
          QueueUrl: smallQueueUrl,
          MessageBody: 'x'.repeat(1000),
          MessageAttributes: { attribute: { DataType: 'Binary', BinaryValue: new Uint8Array(16) } },
        }),
      ),
    );
    expect(withAttributes.name).toBe('InvalidParameterValue');
    await admin.sqs.send(new SendMessageCommand({ QueueUrl: smallQueueUrl, MessageBody: 'x'.repeat(1024) }));
    expect(await receiveAll(smallQueueUrl, 1)).toHaveLength(1);
  });

  it('refuses a batch over 1 MiB in total and one of more than 10 entries', async () => {
    const half = 'y'.repeat(600 * 1024);
    const tooLong = await failure(
      admin.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: otherQueueUrl,
          Entries: [
            { Id: 'a', MessageBody: half },
            { Id: 'b', MessageBody: half },
          ],
        }),
      ),
    );
    expect(tooLong.name).toBe('BatchRequestTooLong');
    const tooMany = await failure(
      admin.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: otherQueueUrl,
          Entries: Array.from({ length: 11 }, (_, index) => ({ Id: `e${index}`, MessageBody: 'x' })),
        }),
      ),
    );
    expect(tooMany.name).toBe('TooManyEntriesInBatchRequest');
    const tooManyChanges = await failure(
      admin.sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: otherQueueUrl,
          Entries: Array.from({ length: 11 }, (_, index) => ({
            Id: `e${index}`,
            ReceiptHandle: 'r',
            VisibilityTimeout: 1,
          })),
        }),
      ),
    );
    expect(tooManyChanges.name).toBe('TooManyEntriesInBatchRequest');
  });

  it('refuses DelaySeconds over 900 and characters AWS does not allow', async () => {
    const delay = await failure(
      admin.sqs.send(
        new SendMessageCommand({ QueueUrl: otherQueueUrl, MessageBody: 'x', DelaySeconds: 901 }),
      ),
    );
    expect(delay.name).toBe('InvalidParameterValue');
    expect(delay.message).toBe(
      'Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.',
    );
    for (const body of ['lone \uD800 surrogate', 'not a character \uFFFF', 'control \u0001']) {
      const invalid = await failure(
        admin.sqs.send(new SendMessageCommand({ QueueUrl: otherQueueUrl, MessageBody: body })),
      );
      expect(invalid.name).toBe('InvalidMessageContents');
    }
    const batch = await admin.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: otherQueueUrl,
        Entries: [
          { Id: 'ok', MessageBody: 'fine 🙂' },
          { Id: 'late', MessageBody: 'x', DelaySeconds: 1000 },
          { Id: 'bad', MessageBody: '\uFFFE' },
        ],
      }),
    );
    expect(batch.Successful?.map((entry) => entry.Id)).toEqual(['ok']);
    expect(Object.fromEntries((batch.Failed ?? []).map((entry) => [entry.Id, entry.Code]))).toEqual({
      late: 'InvalidParameterValue',
      bad: 'InvalidMessageContents',
    });
    expect((await receiveAll(otherQueueUrl, 1)).map((message) => message.Body)).toEqual(['fine 🙂']);
  });

  it('long-polls through the proxy', async () => {
    const polling = admin.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: otherQueueUrl, WaitTimeSeconds: 5 }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await admin.sqs.send(new SendMessageCommand({ QueueUrl: otherQueueUrl, MessageBody: 'late arrival' }));
    const { Messages = [] } = await polling;
    expect(Messages.map((message) => message.Body)).toEqual(['late arrival']);
    await admin.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: otherQueueUrl,
        Entries: [{ Id: '0', ReceiptHandle: Messages[0]?.ReceiptHandle }],
      }),
    );
  });
});

describe('S3 and DynamoDB limits through the proxy', () => {
  it('refuses a multipart upload with a part under 5 MiB that is not the last (fauxqs enforces it)', async () => {
    const { UploadId } = await admin.s3.send(
      new CreateMultipartUploadCommand({ Bucket: names.bucket, Key: 'small-parts' }),
    );
    const parts = [];
    for (const [index, size] of [1024 * 1024, 10].entries()) {
      const { ETag } = await admin.s3.send(
        new UploadPartCommand({
          Bucket: names.bucket,
          Key: 'small-parts',
          UploadId,
          PartNumber: index + 1,
          Body: Buffer.alloc(size, 1),
        }),
      );
      parts.push({ ETag, PartNumber: index + 1 });
    }
    const tooSmall = await failure(
      admin.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: names.bucket,
          Key: 'small-parts',
          UploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
    );
    expect(tooSmall.name).toBe('EntityTooSmall');
  });

  it('streams a multipart upload of a function granted s3:PutObject', async () => {
    const writer = principal('writer', [
      { Statement: [{ Effect: 'Allow', Action: 's3:PutObject', Resource: `${bucketArn}/*` }] },
    ]);
    proxy.addPrincipal(writer);
    const body = Buffer.alloc(11 * 1024 * 1024, 7);
    await new Upload({
      client: clientsFor(writer).s3,
      params: { Bucket: names.bucket, Key: 'exports/big.bin', Body: body },
      partSize: 5 * 1024 * 1024,
      queueSize: 2,
    }).done();
    const stored = await admin.s3.send(
      new GetObjectCommand({ Bucket: names.bucket, Key: 'exports/big.bin' }),
    );
    expect(Buffer.from(await (stored.Body?.transformToByteArray() ?? new Uint8Array())).equals(body)).toBe(
      true,
    );
  });

  it('passes on the limits DynamoDB Local enforces itself (item size here)', async () => {
    const tooBig = await failure(
      admin.dynamodb.send(
        new PutItemCommand({
          TableName: names.table,
          Item: { ...key('big'), d: { S: 'x'.repeat(409_600) } },
        }),
      ),
    );
    expect(tooBig.name).toBe('ValidationException');
    expect(tooBig.message).toBe('Item size has exceeded the maximum allowed size');
  });
});
