import {
  BatchExecuteStatementCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SignatureV4 } from '@smithy/signature-v4';
import { describe, expect, it } from 'vitest';
import { Sha256 } from '../../local/aws-proxy/sigv4';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, type PolicyDocument } from '../../local/cloud/model';
import { signedDynamoDbRequest, useAwsProxy } from '../support/aws-proxy';

/**
 * The local AWS endpoint with real SDK v3 clients against real DynamoDB Local and fauxqs: callers are identified by
 * their signatures and authorized by their policies.
 */
const aws = useAwsProxy();

describe('identity and policies', () => {
  it('shows the resources AWS-shaped: queue URLs on the proxy, ARNs in the request Region', async () => {
    expect(aws.queueUrl).toBe(`${aws.proxy.endpoint}/${LOCAL_ACCOUNT_ID}/${aws.names.queue}`);
    expect(aws.streamArn).toMatch(new RegExp(`^${aws.tableArn(aws.names.table)}/stream/`));
    const described = await aws.admin.dynamodb.send(new DescribeTableCommand({ TableName: aws.names.table }));
    expect(described.Table?.TableArn).toBe(aws.tableArn(aws.names.table));
  });

  it('allows a function what its CDK-shaped policy grants', async () => {
    const fn = aws.principal('reader', [aws.functionPolicy()]);
    aws.proxy.addPrincipal(fn);
    const { dynamodb, sqs, s3 } = aws.clientsFor(fn);
    await dynamodb.send(
      new PutItemCommand({ TableName: aws.names.table, Item: { ...aws.key('a'), gpk: { S: 'g' } } }),
    );
    const got = await dynamodb.send(new GetItemCommand({ TableName: aws.names.table, Key: aws.key('a') }));
    expect(got.Item?.gpk?.S).toBe('g');
    const byIndex = await dynamodb.send(
      new QueryCommand({
        TableName: aws.names.table,
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
              TableName: aws.names.table,
              Key: aws.key('a'),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          { Put: { TableName: aws.names.table, Item: aws.key('b') } },
        ],
      }),
    );
    await sqs.send(new SendMessageCommand({ QueueUrl: aws.queueUrl, MessageBody: 'hello' }));
    const object = await s3.send(new GetObjectCommand({ Bucket: aws.names.bucket, Key: 'reports/a b.csv' }));
    expect(await object.Body?.transformToString()).toBe('id,name\n1,x\n');
  });

  it('denies everything else with each service error AWS gives', async () => {
    const fn = aws.principal('denied', [aws.functionPolicy()]);
    aws.proxy.addPrincipal(fn);
    const { dynamodb, sqs, s3 } = aws.clientsFor(fn);

    const deleteTable = await aws.failure(
      dynamodb.send(new DeleteTableCommand({ TableName: aws.names.table })),
    );
    expect(deleteTable.name).toBe('AccessDeniedException');
    expect(deleteTable.$metadata?.httpStatusCode).toBe(400);
    expect(deleteTable.message).toBe(
      `User: ${fn.arn} is not authorized to perform: dynamodb:DeleteTable on resource: ${aws.tableArn(aws.names.table)} because no identity-based policy allows the dynamodb:DeleteTable action`,
    );
    expect((await aws.failure(dynamodb.send(new ListTablesCommand({})))).name).toBe('AccessDeniedException');
    const otherTable = await aws.failure(
      dynamodb.send(new GetItemCommand({ TableName: aws.names.otherTable, Key: aws.key('a') })),
    );
    expect(otherTable.message).toContain(
      `dynamodb:GetItem on resource: ${aws.tableArn(aws.names.otherTable)}`,
    );
    const otherIndex = await aws.failure(
      dynamodb.send(
        new QueryCommand({
          TableName: aws.names.otherTable,
          IndexName: 'byGpk',
          KeyConditionExpression: 'gpk = :g',
          ExpressionAttributeValues: { ':g': { S: 'g' } },
        }),
      ),
    );
    expect(otherIndex.message).toContain(`on resource: ${aws.tableArn(aws.names.otherTable)}/index/byGpk`);
    const transaction = await aws.failure(
      dynamodb.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: aws.names.table, Item: aws.key('c') } },
            { Delete: { TableName: aws.names.otherTable, Key: aws.key('c') } },
          ],
        }),
      ),
    );
    expect(transaction.message).toContain(
      `dynamodb:DeleteItem on resource: ${aws.tableArn(aws.names.otherTable)}`,
    );
    // Nothing of a denied transaction is written.
    const notWritten = await aws.admin.dynamodb.send(
      new GetItemCommand({ TableName: aws.names.table, Key: aws.key('c') }),
    );
    expect(notWritten.Item).toBeUndefined();

    const receive = await aws.failure(sqs.send(new ReceiveMessageCommand({ QueueUrl: aws.queueUrl })));
    expect(receive.name).toBe('AccessDenied');
    expect(receive.$metadata?.httpStatusCode).toBe(403);
    expect(receive.message).toBe(
      `User: ${fn.arn} is not authorized to perform: sqs:receivemessage on resource: ${aws.queueArn(aws.names.queue)} because no identity-based policy allows the sqs:receivemessage action`,
    );
    const otherQueue = await aws.failure(
      sqs.send(new SendMessageCommand({ QueueUrl: aws.otherQueueUrl, MessageBody: 'x' })),
    );
    expect(otherQueue.name).toBe('AccessDenied');
    const batch = await aws.failure(
      sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: aws.otherQueueUrl,
          Entries: [{ Id: '1', MessageBody: 'x' }],
        }),
      ),
    );
    expect(batch.message).toContain('sqs:sendmessage on resource');

    const put = await aws.failure(
      s3.send(new PutObjectCommand({ Bucket: aws.names.bucket, Key: 'x.txt', Body: 'x' })),
    );
    expect(put.name).toBe('AccessDenied');
    expect(put.$metadata?.httpStatusCode).toBe(403);
    expect(put.message).toBe(
      `User: ${fn.arn} is not authorized to perform: s3:PutObject on resource: "${aws.bucketArn}/x.txt" because no identity-based policy allows the s3:PutObject action`,
    );
    const list = await aws.failure(s3.send(new ListObjectsV2Command({ Bucket: aws.names.bucket })));
    expect(list.name).toBe('AccessDenied');
    expect(list.message).toContain(`s3:ListBucket on resource: "${aws.bucketArn}"`);
  });

  it('allows a call while the grant is there and denies it once the grant is removed', async () => {
    const fn = aws.principal('changing', [aws.functionPolicy()]);
    aws.proxy.addPrincipal(fn);
    const { dynamodb } = aws.clientsFor(fn);
    await dynamodb.send(new GetItemCommand({ TableName: aws.names.table, Key: aws.key('a') }));
    const withoutDynamoDb = aws.functionPolicy();
    withoutDynamoDb.Statement = withoutDynamoDb.Statement.slice(1);
    aws.proxy.addPrincipal({ ...fn, policies: [withoutDynamoDb] });
    const denied = await aws.failure(
      dynamodb.send(new GetItemCommand({ TableName: aws.names.table, Key: aws.key('a') })),
    );
    expect(denied.name).toBe('AccessDeniedException');
  });

  it('lets an explicit Deny win over an Allow', async () => {
    const deny: PolicyDocument = {
      Statement: [{ Effect: 'Deny', Action: 'dynamodb:Get*', Resource: aws.tableArn(aws.names.table) }],
    };
    const fn = aws.principal('explicit', [aws.functionPolicy(), deny]);
    aws.proxy.addPrincipal(fn);
    const denied = await aws.failure(
      aws.clientsFor(fn).dynamodb.send(new GetItemCommand({ TableName: aws.names.table, Key: aws.key('a') })),
    );
    expect(denied.message).toBe(
      `User: ${fn.arn} is not authorized to perform: dynamodb:GetItem on resource: ${aws.tableArn(aws.names.table)} with an explicit deny in an identity-based policy`,
    );
  });

  it('checks each PartiQL INSERT against dynamodb:PartiQLInsert on its table, and refuses every other statement', async () => {
    const table = aws.names.table;
    const insert = (pk: string) => ({
      Statement: `INSERT INTO "${table}" VALUE {'pk': ?, 'sk': ?}`,
      Parameters: Object.values(aws.key(pk)),
    });
    const writer = aws.principal('no-partiql', [aws.functionPolicy()]);
    const inserter = aws.principal('partiql-insert', [
      aws.functionPolicy(),
      { Statement: [{ Effect: 'Allow', Action: 'dynamodb:PartiQLInsert', Resource: aws.tableArn(table) }] },
    ]);
    aws.proxy.addPrincipal(writer);
    aws.proxy.addPrincipal(inserter);
    const denied = await aws.failure(
      aws
        .clientsFor(writer)
        .dynamodb.send(new BatchExecuteStatementCommand({ Statements: [insert('pq-a')] })),
    );
    expect(denied.name).toBe('AccessDeniedException');
    expect(denied.message).toBe(
      `User: ${writer.arn} is not authorized to perform: dynamodb:PartiQLInsert on resource: ${aws.tableArn(table)} because no identity-based policy allows the dynamodb:PartiQLInsert action`,
    );
    const { dynamodb } = aws.clientsFor(inserter);
    await dynamodb.send(new BatchExecuteStatementCommand({ Statements: [insert('pq-a')] }));
    const inserted = await dynamodb.send(
      new BatchExecuteStatementCommand({ Statements: [insert('pq-b'), insert('pq-a')] }),
    );
    expect(inserted.Responses?.map((response) => response.Error?.Code)).toEqual([undefined, 'DuplicateItem']);
    const read = await dynamodb.send(
      new GetItemCommand({ TableName: table, Key: aws.key('pq-a'), ConsistentRead: true }),
    );
    expect(read.Item).toEqual(aws.key('pq-a'));
    // Whatever else PartiQL can say is not read by the local runtime, so not let through unchecked.
    const select = await aws.failure(
      dynamodb.send(
        new BatchExecuteStatementCommand({
          Statements: [
            {
              Statement: `SELECT * FROM "${table}" WHERE pk = ? AND sk = ?`,
              Parameters: Object.values(aws.key('pq-a')),
            },
          ],
        }),
      ),
    );
    expect(select.name).toBe('AccessDeniedException');
    expect(select.message).toContain('BatchExecuteStatement statement "SELECT * FROM');
  });

  it('authorizes stream reads on the stream ARN', async () => {
    const reader = aws.principal('stream-reader', [
      {
        Statement: [
          {
            Effect: 'Allow',
            Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
            Resource: aws.streamArn,
          },
        ],
      },
    ]);
    aws.proxy.addPrincipal(reader);
    const { streams } = aws.clientsFor(reader);
    const stream = await streams.send(new DescribeStreamCommand({ StreamArn: aws.streamArn }));
    const shardId = stream.StreamDescription?.Shards?.[0]?.ShardId as string;
    const iterator = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: aws.streamArn,
        ShardId: shardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    const records = await streams.send(new GetRecordsCommand({ ShardIterator: iterator.ShardIterator }));
    expect(records.Records?.length).toBeGreaterThan(0);

    const stranger = aws.principal('stranger', [aws.functionPolicy()]);
    aws.proxy.addPrincipal(stranger);
    const denied = await aws.failure(
      aws.clientsFor(stranger).streams.send(new GetRecordsCommand({ ShardIterator: iterator.ShardIterator })),
    );
    expect(denied.name).toBe('AccessDeniedException');
    expect(denied.message).toContain(`dynamodb:GetRecords on resource: ${aws.streamArn}`);
  });

  it('refuses an operation it cannot map to IAM permissions', async () => {
    const fn = aws.principal('unknown-op', [
      { Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
    ]);
    aws.proxy.addPrincipal(fn);
    const response = await fetch(
      `${aws.proxy.endpoint}/`,
      await signedDynamoDbRequest(fn, 'ExecuteStatement', {}),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      __type: 'com.amazon.coral.service#AccessDeniedException',
      Message: expect.stringContaining('ExecuteStatement'),
    });
  });
});

describe('a read of a missing object', () => {
  it('answers 403 to a caller that may read the key but not list the bucket, and 404 to one that may list it', async () => {
    const reader = aws.principal('object-reader', [aws.functionPolicy()]);
    const lister = aws.principal('object-lister', [
      aws.functionPolicy(),
      {
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Action: 's3:ListBucket', Resource: aws.bucketArn }],
      },
    ]);
    aws.proxy.addPrincipal(reader);
    aws.proxy.addPrincipal(lister);
    const missing = { Bucket: aws.names.bucket, Key: 'never-written.txt' };

    const { s3 } = aws.clientsFor(reader);
    const get = await aws.failure(s3.send(new GetObjectCommand(missing)));
    expect(get).toMatchObject({
      name: 'AccessDenied',
      message: 'Access Denied',
      $metadata: { httpStatusCode: 403 },
    });
    const head = await aws.failure(s3.send(new HeadObjectCommand(missing)));
    expect(head.$metadata?.httpStatusCode).toBe(403);

    const listing = aws.clientsFor(lister).s3;
    expect((await aws.failure(listing.send(new GetObjectCommand(missing)))).name).toBe('NoSuchKey');
    const listedHead = await aws.failure(listing.send(new HeadObjectCommand(missing)));
    expect(listedHead).toMatchObject({ name: 'NotFound', $metadata: { httpStatusCode: 404 } });

    // An object that is there is read the same by both.
    await aws.admin.s3.send(new PutObjectCommand({ ...missing, Key: 'written.txt', Body: 'x' }));
    expect((await s3.send(new HeadObjectCommand({ ...missing, Key: 'written.txt' }))).ContentLength).toBe(1);
  });
});

describe('authentication', () => {
  it('refuses an unknown access key as each service does', async () => {
    const unknown = aws.principal('nobody', 'admin');
    const { dynamodb, sqs, s3 } = aws.clientsFor(unknown);
    expect((await aws.failure(dynamodb.send(new ListTablesCommand({})))).name).toBe(
      'UnrecognizedClientException',
    );
    const sqsError = await aws.failure(sqs.send(new GetQueueAttributesCommand({ QueueUrl: aws.queueUrl })));
    expect(sqsError.name).toBe('InvalidClientTokenId');
    expect(sqsError.$metadata?.httpStatusCode).toBe(403);
    const s3Error = await aws.failure(
      s3.send(new GetObjectCommand({ Bucket: aws.names.bucket, Key: 'reports/a b.csv' })),
    );
    expect(s3Error.name).toBe('InvalidAccessKeyId');
  });

  it('refuses a wrong secret as a signature mismatch', async () => {
    const fn = aws.principal('wrong-secret', 'admin');
    aws.proxy.addPrincipal(fn);
    const { dynamodb, sqs, s3 } = aws.clientsFor(fn, { secretAccessKey: 'not-the-secret' });
    expect((await aws.failure(dynamodb.send(new ListTablesCommand({})))).name).toBe(
      'InvalidSignatureException',
    );
    expect(
      (await aws.failure(sqs.send(new GetQueueAttributesCommand({ QueueUrl: aws.queueUrl })))).name,
    ).toBe('SignatureDoesNotMatch');
    expect(
      (await aws.failure(s3.send(new GetObjectCommand({ Bucket: aws.names.bucket, Key: 'reports/a b.csv' }))))
        .name,
    ).toBe('SignatureDoesNotMatch');
  });

  it('refuses expired credentials and wrong session tokens', async () => {
    const expired = aws.principal('expired', 'admin', {
      sessionToken: 'token-1',
      expiresAt: Date.now() - 1000,
    });
    aws.proxy.addPrincipal(expired);
    const late = aws.clientsFor(expired);
    expect((await aws.failure(late.dynamodb.send(new ListTablesCommand({})))).name).toBe(
      'ExpiredTokenException',
    );
    expect(
      (await aws.failure(late.sqs.send(new GetQueueAttributesCommand({ QueueUrl: aws.queueUrl })))).name,
    ).toBe('ExpiredToken');
    expect(
      (
        await aws.failure(
          late.s3.send(new GetObjectCommand({ Bucket: aws.names.bucket, Key: 'reports/a b.csv' })),
        )
      ).name,
    ).toBe('ExpiredToken');

    const current = aws.principal('token', 'admin', {
      sessionToken: 'token-2',
      expiresAt: Date.now() + 60_000,
    });
    aws.proxy.addPrincipal(current);
    await aws.clientsFor(current).dynamodb.send(new ListTablesCommand({}));
    const wrongToken = aws.clientsFor(current, { sessionToken: 'token-3' });
    expect((await aws.failure(wrongToken.dynamodb.send(new ListTablesCommand({})))).name).toBe(
      'UnrecognizedClientException',
    );
    expect(
      (
        await aws.failure(
          wrongToken.s3.send(new GetObjectCommand({ Bucket: aws.names.bucket, Key: 'reports/a b.csv' })),
        )
      ).name,
    ).toBe('InvalidToken');
  });

  it('refuses unsigned requests', async () => {
    const dynamodb = await fetch(`${aws.proxy.endpoint}/`, {
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
    const sqs = await fetch(`${aws.proxy.endpoint}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ListQueues' },
      body: '{}',
    });
    expect(sqs.status).toBe(403);
    expect(sqs.headers.get('x-amzn-query-error')).toBe('MissingAuthenticationToken;Sender');
    const s3 = await fetch(`${aws.proxy.endpoint}/${aws.names.bucket}/reports/a%20b.csv`);
    expect(s3.status).toBe(403);
    expect(await s3.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('serves a presigned GET, and refuses it expired or tampered with', async () => {
    const fn = aws.principal('presigner', [aws.functionPolicy()]);
    aws.proxy.addPrincipal(fn);
    const { s3 } = aws.clientsFor(fn);
    const command = new GetObjectCommand({
      Bucket: aws.names.bucket,
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

    aws.proxy.addPrincipal({ ...fn, expiresAt: Date.now() - 1 });
    const afterCredentialsExpired = await fetch(link);
    expect(afterCredentialsExpired.status).toBe(400);
    expect(await afterCredentialsExpired.text()).toContain('<Code>ExpiredToken</Code>');
  });

  it('refuses an S3 body that is not the one signed, storing nothing', async () => {
    const url = new URL(`${aws.proxy.endpoint}/${aws.names.bucket}/tampered.txt`);
    const signer = new SignatureV4({
      service: 's3',
      region: LOCAL_REGION,
      credentials: {
        accessKeyId: aws.admin.principal.accessKeyId,
        secretAccessKey: aws.admin.principal.secretAccessKey,
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
    const missing = await aws.failure(
      aws.admin.s3.send(new GetObjectCommand({ Bucket: aws.names.bucket, Key: 'tampered.txt' })),
    );
    expect(missing.name).toBe('NoSuchKey');
  });
});
