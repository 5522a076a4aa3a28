import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import {
  ChangeMessageVisibilityBatchCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { Upload } from '@aws-sdk/lib-storage';
import { describe, expect, it } from 'vitest';
import { useAwsProxy } from '../support/aws-proxy';

/**
 * The local AWS endpoint with real SDK v3 clients against real DynamoDB Local and fauxqs: SQS, S3 and DynamoDB with
 * AWS's errors and limits.
 */
const aws = useAwsProxy();

describe('SQS through the proxy', () => {
  const receiveAll = async (url: string, expected: number): Promise<Message[]> => {
    const messages: Message[] = [];
    for (let attempt = 0; attempt < 10 && messages.length < expected; attempt++) {
      const { Messages = [] } = await aws.admin.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      messages.push(...Messages);
    }
    if (messages.length > 0) {
      await aws.admin.sqs.send(
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
    const { QueueUrl } = await aws.admin.sqs.send(
      new CreateQueueCommand({ QueueName: `proxy-${aws.run}-emoji` }),
    );
    const bodies = [
      'route done 🚚✅',
      'plain',
      '\uE000 starts with the escape mark 😀',
      '𝄞 music \uE000\uE000 𝄞',
    ];
    await aws.admin.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: bodies[0] }));
    await aws.admin.sqs.send(
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
    await aws.admin.sqs.send(
      new SendMessageCommand({
        QueueUrl: aws.smallQueueUrl,
        MessageBody: body,
        MessageAttributes: attributes,
      }),
    );
    const { Messages = [] } = await aws.admin.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: aws.smallQueueUrl,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
      }),
    );
    expect(Messages[0]?.Body).toBe(body);
    expect(Messages[0]?.MessageAttributes?.kind?.StringValue).toBe('emoji');
    await aws.admin.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: aws.smallQueueUrl,
        Entries: [{ Id: '0', ReceiptHandle: Messages[0]?.ReceiptHandle }],
      }),
    );
  });

  it('returns message attributes only when asked for, as AWS does', async () => {
    const { QueueUrl } = await aws.admin.sqs.send(
      new CreateQueueCommand({ QueueName: `proxy-${aws.run}-attributes` }),
    );
    await aws.admin.sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: 'x',
        MessageAttributes: { trace: { DataType: 'String', StringValue: 't' } },
      }),
    );
    const { Messages = [] } = await aws.admin.sqs.send(
      new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }),
    );
    expect(Messages[0]?.Body).toBe('x');
    expect(Messages[0]?.MessageAttributes).toBeUndefined();
  });

  it("refuses a message over the queue's MaximumMessageSize, counting attributes", async () => {
    const tooLong = await aws.failure(
      aws.admin.sqs.send(
        new SendMessageCommand({ QueueUrl: aws.smallQueueUrl, MessageBody: 'x'.repeat(1025) }),
      ),
    );
    expect(tooLong.name).toBe('InvalidParameterValue');
    expect(tooLong.message).toBe(
      'One or more parameters are invalid. Reason: Message must be shorter than 1024 bytes.',
    );
    const withAttributes = await aws.failure(
      aws.admin.sqs.send(
        new SendMessageCommand({
          QueueUrl: aws.smallQueueUrl,
          MessageBody: 'x'.repeat(1000),
          MessageAttributes: { attribute: { DataType: 'Binary', BinaryValue: new Uint8Array(16) } },
        }),
      ),
    );
    expect(withAttributes.name).toBe('InvalidParameterValue');
    await aws.admin.sqs.send(
      new SendMessageCommand({ QueueUrl: aws.smallQueueUrl, MessageBody: 'x'.repeat(1024) }),
    );
    expect(await receiveAll(aws.smallQueueUrl, 1)).toHaveLength(1);
  });

  it('refuses a batch over 1 MiB in total and one of more than 10 entries', async () => {
    const half = 'y'.repeat(600 * 1024);
    const tooLong = await aws.failure(
      aws.admin.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: aws.otherQueueUrl,
          Entries: [
            { Id: 'a', MessageBody: half },
            { Id: 'b', MessageBody: half },
          ],
        }),
      ),
    );
    expect(tooLong.name).toBe('BatchRequestTooLong');
    const tooMany = await aws.failure(
      aws.admin.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: aws.otherQueueUrl,
          Entries: Array.from({ length: 11 }, (_, index) => ({ Id: `e${index}`, MessageBody: 'x' })),
        }),
      ),
    );
    expect(tooMany.name).toBe('TooManyEntriesInBatchRequest');
    const tooManyChanges = await aws.failure(
      aws.admin.sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: aws.otherQueueUrl,
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
    const delay = await aws.failure(
      aws.admin.sqs.send(
        new SendMessageCommand({ QueueUrl: aws.otherQueueUrl, MessageBody: 'x', DelaySeconds: 901 }),
      ),
    );
    expect(delay.name).toBe('InvalidParameterValue');
    expect(delay.message).toBe(
      'Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.',
    );
    for (const body of ['lone \uD800 surrogate', 'not a character \uFFFF', 'control \u0001']) {
      const invalid = await aws.failure(
        aws.admin.sqs.send(new SendMessageCommand({ QueueUrl: aws.otherQueueUrl, MessageBody: body })),
      );
      expect(invalid.name).toBe('InvalidMessageContents');
    }
    const batch = await aws.admin.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: aws.otherQueueUrl,
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
    expect((await receiveAll(aws.otherQueueUrl, 1)).map((message) => message.Body)).toEqual(['fine 🙂']);
  });

  it('hands out as many messages of a FIFO group as it can, in order, and none of it again until they are deleted', async () => {
    const { QueueUrl } = await aws.admin.sqs.send(
      new CreateQueueCommand({
        QueueName: `proxy-${aws.run}-groups.fifo`,
        Attributes: {
          FifoQueue: 'true',
          DeduplicationScope: 'messageGroup',
          FifoThroughputLimit: 'perMessageGroupId',
        },
      }),
    );
    const sent = [
      ['A', 'a1'],
      ['B', 'b1'],
      ['A', 'a2'],
      ['A', 'a3'],
      ['B', 'b2'],
    ];
    await aws.admin.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: sent.map(([group, body]) => ({
          Id: body,
          MessageBody: body,
          MessageGroupId: group,
          MessageDeduplicationId: body,
        })),
      }),
    );
    const receive = () =>
      aws.admin.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          MessageSystemAttributeNames: ['MessageGroupId'],
        }),
      );
    const { Messages = [] } = await receive();
    // Each group's messages together, in the order sent (SQS's FIFO delivery logic); fauxqs alone gives one.
    const bodies = (group: string) =>
      Messages.filter((m) => m.Attributes?.MessageGroupId === group).map((m) => m.Body);
    expect(bodies('A')).toEqual(['a1', 'a2', 'a3']);
    expect(bodies('B')).toEqual(['b1', 'b2']);
    // A sixth message of A waits while A's first are in flight.
    await aws.admin.sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: 'a4',
        MessageGroupId: 'A',
        MessageDeduplicationId: 'a4',
      }),
    );
    expect((await receive()).Messages ?? []).toEqual([]);
    await aws.admin.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl,
        Entries: Messages.map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.ReceiptHandle,
        })),
      }),
    );
    expect(((await receive()).Messages ?? []).map((message) => message.Body)).toEqual(['a4']);
  });

  it('long-polls through the proxy', async () => {
    const polling = aws.admin.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: aws.otherQueueUrl, WaitTimeSeconds: 5 }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await aws.admin.sqs.send(
      new SendMessageCommand({ QueueUrl: aws.otherQueueUrl, MessageBody: 'late arrival' }),
    );
    const { Messages = [] } = await polling;
    expect(Messages.map((message) => message.Body)).toEqual(['late arrival']);
    await aws.admin.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: aws.otherQueueUrl,
        Entries: [{ Id: '0', ReceiptHandle: Messages[0]?.ReceiptHandle }],
      }),
    );
  });
});

describe('S3 and DynamoDB limits through the proxy', () => {
  it('refuses a multipart upload with a part under 5 MiB that is not the last (fauxqs enforces it)', async () => {
    const { UploadId } = await aws.admin.s3.send(
      new CreateMultipartUploadCommand({ Bucket: aws.names.bucket, Key: 'small-parts' }),
    );
    const parts = [];
    for (const [index, size] of [1024 * 1024, 10].entries()) {
      const { ETag } = await aws.admin.s3.send(
        new UploadPartCommand({
          Bucket: aws.names.bucket,
          Key: 'small-parts',
          UploadId,
          PartNumber: index + 1,
          Body: Buffer.alloc(size, 1),
        }),
      );
      parts.push({ ETag, PartNumber: index + 1 });
    }
    const tooSmall = await aws.failure(
      aws.admin.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: aws.names.bucket,
          Key: 'small-parts',
          UploadId,
          MultipartUpload: { Parts: parts },
        }),
      ),
    );
    expect(tooSmall.name).toBe('EntityTooSmall');
  });

  it('streams a multipart upload of a function granted s3:PutObject', async () => {
    const writer = aws.principal('writer', [
      { Statement: [{ Effect: 'Allow', Action: 's3:PutObject', Resource: `${aws.bucketArn}/*` }] },
    ]);
    aws.proxy.addPrincipal(writer);
    const body = Buffer.alloc(11 * 1024 * 1024, 7);
    await new Upload({
      client: aws.clientsFor(writer).s3,
      params: { Bucket: aws.names.bucket, Key: 'exports/big.bin', Body: body },
      partSize: 5 * 1024 * 1024,
      queueSize: 2,
    }).done();
    const stored = await aws.admin.s3.send(
      new GetObjectCommand({ Bucket: aws.names.bucket, Key: 'exports/big.bin' }),
    );
    expect(Buffer.from(await (stored.Body?.transformToByteArray() ?? new Uint8Array())).equals(body)).toBe(
      true,
    );
  });

  it('passes on the limits DynamoDB Local enforces itself (item size here)', async () => {
    const tooBig = await aws.failure(
      aws.admin.dynamodb.send(
        new PutItemCommand({
          TableName: aws.names.table,
          Item: { ...aws.key('big'), d: { S: 'x'.repeat(409_600) } },
        }),
      ),
    );
    expect(tooBig.name).toBe('ValidationException');
    expect(tooBig.message).toBe('Item size has exceeded the maximum allowed size');
  });
});
