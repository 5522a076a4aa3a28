import { randomBytes, randomUUID } from 'node:crypto';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, inject } from 'vitest';
import { type AwsProxy, type Principal, startAwsProxy } from '../../local/aws-proxy/proxy';
import { Sha256 } from '../../local/aws-proxy/sigv4';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, type PolicyDocument } from '../../local/cloud/model';
import { workerDynamoDb } from './local-api';

/**
 * The local AWS endpoint of a test file (test/e2e/aws-proxy*.test.ts): the signing proxy in front of its
 * worker's DynamoDB Local and fauxqs, with two tables, three queues and a bucket made by an operator, and what
 * the tests use to call it as principals of their own. `const aws = useAwsProxy()` at the top of a file starts
 * and stops it; the fixture's fields are set from its beforeAll on.
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

/** What `useAwsProxy()` starts and makes (filled in by its beforeAll), and the helpers to call it. */
export interface AwsProxyFixture extends ReturnType<typeof fixtureHelpers> {
  /** The worker's DynamoDB Local, behind the proxy. */
  dynamodbEndpoint: string;
  proxy: AwsProxy;
  /** The operator's clients: may do anything. */
  admin: Clients;
  queueUrl: string;
  otherQueueUrl: string;
  /** A queue that takes messages of at most 1 KiB. */
  smallQueueUrl: string;
  streamArn: string;
}
/** Every client made, destroyed after the file. */
const clients: Clients[] = [];

export interface Clients {
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
    endpoint: aws.proxy.endpoint,
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

/** The key of the item with partition key `pk` in the test tables. */
const key = (pk: string) => ({ pk: { S: pk }, sk: { S: 'item' } });

/** Starts the file's proxy on its worker's DynamoDB Local and makes its resources (call at the top of the file). */
export function useAwsProxy(): AwsProxyFixture {
  beforeAll(async () => {
    aws.dynamodbEndpoint = workerDynamoDb();
    aws.proxy = await startAwsProxy({
      dynamodbEndpoint: aws.dynamodbEndpoint,
      awsEndpoint: inject('awsEndpoint'),
    });
    const operator = principal('operator', 'admin');
    aws.proxy.addPrincipal(operator);
    aws.admin = clientsFor(operator);
    for (const table of [names.table, names.otherTable]) {
      await aws.admin.dynamodb.send(
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
    const described = await aws.admin.dynamodb.send(new DescribeTableCommand({ TableName: names.table }));
    aws.streamArn = described.Table?.LatestStreamArn as string;
    aws.queueUrl = (await aws.admin.sqs.send(new CreateQueueCommand({ QueueName: names.queue })))
      .QueueUrl as string;
    aws.otherQueueUrl = (await aws.admin.sqs.send(new CreateQueueCommand({ QueueName: names.otherQueue })))
      .QueueUrl as string;
    aws.smallQueueUrl = (
      await aws.admin.sqs.send(
        new CreateQueueCommand({ QueueName: names.smallQueue, Attributes: { MaximumMessageSize: '1024' } }),
      )
    ).QueueUrl as string;
    await aws.admin.s3.send(new CreateBucketCommand({ Bucket: names.bucket }));
    await aws.admin.s3.send(
      new PutObjectCommand({ Bucket: names.bucket, Key: 'reports/a b.csv', Body: 'id,name\n1,x\n' }),
    );
  });

  afterAll(async () => {
    for (const table of [names.table, names.otherTable]) {
      await aws.admin?.dynamodb.send(new DeleteTableCommand({ TableName: table })).catch(() => {});
    }
    for (const made of clients.splice(0)) {
      made.dynamodb.destroy();
      made.streams.destroy();
      made.sqs.destroy();
      made.s3.destroy();
    }
    await aws.proxy?.close();
  });
  return aws;
}

/** A DynamoDB call signed by hand with the SDK's signer, for what SDK clients cannot send. */
export async function signedDynamoDbRequest(
  who: Principal,
  operation: string,
  input: object,
): Promise<RequestInit> {
  const url = new URL(aws.proxy.endpoint);
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

/** The client settings of a function's SDK client locally: `who` signs, against `endpoint` (default the proxy). */
function clientConfig(who: Partial<Principal>, endpoint = aws.proxy.endpoint) {
  return {
    endpoint,
    region: LOCAL_REGION,
    maxAttempts: 1,
    credentials: {
      accessKeyId: who.accessKeyId as string,
      secretAccessKey: who.secretAccessKey as string,
      sessionToken: who.sessionToken,
    },
  };
}

/** The names, ARNs and helpers a test file reaches through its fixture. */
function fixtureHelpers() {
  return {
    run,
    names,
    tableArn,
    queueArn,
    bucketArn,
    key,
    principal,
    clientsFor,
    functionPolicy,
    failure,
    clientConfig,
  };
}

const aws = fixtureHelpers() as AwsProxyFixture;
