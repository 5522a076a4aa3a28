import { beforeAll, describe, expect, it } from 'vitest';
import { DRIVER_SIGN_IN_FAILURES } from '../../functions/shared/limits';
import { RESOURCE_ENV } from '../../functions/shared/resources';

// The data modules read the table name when loaded; nothing here talks to DynamoDB.
beforeAll(() => {
  process.env[RESOURCE_ENV.table] ??= 'sign-in-limit-test';
});

const { tokens: LIMIT, windowMs } = DRIVER_SIGN_IN_FAILURES;
const current = 40 * windowMs;
const previous = current - windowMs;
const tags = (count: number, prefix = 't') =>
  new Set(Array.from({ length: count }, (_, i) => `${prefix}${i}`));

describe('when a source locked by failed sign-ins may retry (Retry-After)', async () => {
  const retryTime = async (failed: Map<number, Set<string>>) =>
    (await import('../../functions/domain/driver-auth')).signInRetryTime(failed, current);

  it('is none below the limit, a token failed in both windows counted once', async () => {
    expect(await retryTime(new Map())).toBeUndefined();
    expect(
      await retryTime(
        new Map([
          [previous, tags(LIMIT - 1)],
          [current, tags(LIMIT - 1)],
        ]),
      ),
    ).toBeUndefined();
  });

  it('is the next window’s start when the previous window’s failures take part in the lock', async () => {
    expect(await retryTime(new Map([[previous, tags(LIMIT)]]))).toBe(current + windowMs);
    const split = new Map([
      [previous, tags(1, 'p')],
      [current, tags(LIMIT - 1)],
    ]);
    expect(await retryTime(split)).toBe(current + windowMs);
  });

  it('is the start of the window after that when the current window’s failures alone reach the limit', async () => {
    expect(await retryTime(new Map([[current, tags(LIMIT)]]))).toBe(current + 2 * windowMs);
  });
});
