import type { Context, SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defineChannel } from '../../functions/shared/channel';
import { sqsBatchHandler } from '../../functions/shared/sqs-handler';
import * as z from '../../functions/shared/zod';

/**
 * A consumer that handles its batch at once (the event feed's): which records it reports as failed, on a standard
 * and on a FIFO queue, where a group's records after a failed one must fail too (SQS then hands the group out
 * again from the failed record, in order).
 */

const numbers = defineChannel('numbers', {
  urlEnv: 'NUMBERS_QUEUE_URL',
  deadLetterUrlEnv: 'NUMBERS_DLQ_URL',
  visibilityTimeoutSeconds: 60,
  maxReceiveCount: 3,
  message: () => z.object({ n: z.int() }),
});

const context = {
  awsRequestId: 'req-1',
  functionName: 'batch-test',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:batch-test',
  memoryLimitInMB: '128',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

const record = (id: string, body: string, group?: string): SQSRecord =>
  ({
    messageId: id,
    body,
    attributes: { ApproximateReceiveCount: '1', ...(group ? { MessageGroupId: group } : {}) },
  }) as unknown as SQSRecord;

/** Fails the messages whose number is odd; records what it was given. */
function oddFails() {
  const given: number[][] = [];
  const handler = sqsBatchHandler(
    { queue: numbers },
    {
      handleBatch: async (messages) => {
        given.push(messages.map((message) => message.n));
        return new Set(messages.flatMap((message, place) => (message.n % 2 ? [place] : [])));
      },
    },
  );
  return { handler, given };
}

const failures = (result: unknown) =>
  (result as { batchItemFailures: { itemIdentifier: string }[] }).batchItemFailures.map(
    (failure) => failure.itemIdentifier,
  );

afterEach(() => vi.restoreAllMocks());

describe('a batch consumer', () => {
  it('hands the readable messages over at once, in order, and reports the failed ones and the unreadable', async () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const { handler, given } = oddFails();
    const result = await handler(
      {
        Records: [
          record('a', '{"n":2}'),
          record('b', '{"n":3}'),
          record('c', 'no json'),
          record('d', '{"n":4}'),
        ],
      },
      context,
    );
    expect(given).toEqual([[2, 3, 4]]);
    expect(failures(result)).toEqual(['b', 'c']);
  });

  it('on a FIFO queue, fails every record of a group after its first failure, and leaves the other groups alone', async () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const { handler, given } = oddFails();
    const result = await handler(
      {
        Records: [
          record('a1', '{"n":2}', 'A'),
          record('b1', 'no json', 'B'),
          record('a2', '{"n":3}', 'A'),
          record('b2', '{"n":6}', 'B'),
          record('a3', '{"n":8}', 'A'),
          record('c1', '{"n":10}', 'C'),
        ],
      },
      context,
    );
    // b2 comes after B's unreadable b1: it is not handled at all.
    expect(given).toEqual([[2, 3, 8, 10]]);
    expect(failures(result)).toEqual(['b1', 'a2', 'b2', 'a3']);
  });

  it('fails every record it handed over when the handler throws', async () => {
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const handler = sqsBatchHandler(
      { queue: numbers },
      {
        handleBatch: async () => {
          throw new Error('the table is gone');
        },
      },
    );
    const result = await handler({ Records: [record('a', '{"n":2}'), record('b', '{"n":4}')] }, context);
    expect(failures(result)).toEqual(['a', 'b']);
  });
});
