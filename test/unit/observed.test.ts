import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appendLogKeys, logger, observed } from '../../functions/shared/observability';

/**
 * What the observability wrapper does around a handler, read from the JSON lines the logger writes (at ERROR:
 * the tests' environment logs nothing below it, vitest.config.ts).
 */

const contextOf = (awsRequestId: string) =>
  ({
    awsRequestId,
    functionName: 'observed-test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:observed-test',
    memoryLimitInMB: '128',
    getRemainingTimeInMillis: () => 10_000,
  }) as unknown as Context;

function captureLines(): { lines: () => Record<string, unknown>[] } {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  return {
    lines: () =>
      written
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

afterEach(() => vi.restoreAllMocks());

describe('observed', () => {
  it("answers the handler's result, with the invocation's request id on its log lines", async () => {
    const { lines } = captureLines();
    const handler = observed(async (event: { n: number }) => {
      logger.error('inside', { n: event.n });
      return event.n * 2;
    });
    expect(await handler({ n: 21 }, contextOf('req-one'))).toBe(42);
    const inside = lines().find((line) => line.message === 'inside');
    expect(inside).toMatchObject({ function_request_id: 'req-one', function_name: 'observed-test', n: 21 });
  });

  it('rethrows what the handler threw, and clears the keys it appended for the next invocation', async () => {
    const { lines } = captureLines();
    const failure = new Error('the handler failed');
    const failing = observed(async () => {
      appendLogKeys({ driver_id: 'drv_leaky' });
      logger.error('before failing');
      throw failure;
    });
    await expect(failing({}, contextOf('req-failing'))).rejects.toBe(failure);
    const next = observed(async () => logger.error('next invocation'));
    await next({}, contextOf('req-next'));
    const all = lines();
    expect(all.find((line) => line.message === 'before failing')).toMatchObject({ driver_id: 'drv_leaky' });
    const after = all.find((line) => line.message === 'next invocation');
    expect(after).toMatchObject({ function_request_id: 'req-next' });
    expect(after).not.toHaveProperty('driver_id');
  });

  it('clears the appended keys after a successful invocation too', async () => {
    const { lines } = captureLines();
    await observed(async () => appendLogKeys({ account_id: 'acc_first' }))({}, contextOf('req-a'));
    await observed(async () => logger.error('second'))({}, contextOf('req-b'));
    expect(lines().find((line) => line.message === 'second')).not.toHaveProperty('account_id');
  });
});
