import { describe, expect, it } from 'vitest';
import { MAX_RETRIES_WITHOUT_PROGRESS, withUnprocessedRetry } from '../../functions/data/client';

/**
 * The data layer's batches (functions/data/client.ts) against a partition at its limit: DynamoDB processes a
 * little of each try, or throttles all of it. The pauses are recorded instead of waited.
 */
const throttled = () =>
  Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ThrottlingException' });

function recordedPauses() {
  const pauses: number[] = [];
  return { pauses, sleep: async (ms: number) => void pauses.push(ms) };
}

describe('withUnprocessedRetry', () => {
  it('keeps sending a batch that DynamoDB processes one item at a time, however many tries that takes', async () => {
    const { pauses, sleep } = recordedPauses();
    const items = Array.from({ length: 40 }, (_, i) => i);
    const sent: number[][] = [];
    await withUnprocessedRetry<number[]>(
      async (pending) => {
        sent.push(pending);
        return pending.length > 1 ? pending.slice(1) : undefined;
      },
      items,
      sleep,
    );
    expect(sent).toHaveLength(40);
    expect(sent.at(-1)).toEqual([39]);
    // Progress keeps the pause short: never past the first step of the backoff.
    expect(Math.max(...pauses)).toBeLessThanOrEqual(100);
  });

  it('treats a batch throttled whole (the SDK’s retries spent) as nothing processed, and tries again', async () => {
    const { pauses, sleep } = recordedPauses();
    let tries = 0;
    await withUnprocessedRetry<string[]>(
      async () => {
        tries += 1;
        if (tries <= 5) throw throttled();
        return undefined;
      },
      ['a', 'b'],
      sleep,
    );
    expect(tries).toBe(6);
    expect(pauses).toHaveLength(5);
  });

  it('gives a batch up once MAX_RETRIES_WITHOUT_PROGRESS retries in a row processed nothing', async () => {
    const { pauses, sleep } = recordedPauses();
    let tries = 0;
    const stuck = withUnprocessedRetry<string[]>(
      async (pending) => {
        tries += 1;
        return pending;
      },
      ['a', 'b', 'c'],
      sleep,
    );
    await expect(stuck).rejects.toThrow(
      `DynamoDB processed none of 3 batch items in ${MAX_RETRIES_WITHOUT_PROGRESS + 1} tries`,
    );
    expect(tries).toBe(MAX_RETRIES_WITHOUT_PROGRESS + 1);
    expect(pauses.every((ms) => ms >= 0 && ms <= 2_000)).toBe(true);
  });

  it('lets any other error through at once', async () => {
    const { pauses, sleep } = recordedPauses();
    const refused = Object.assign(new Error('One or more parameter values were invalid'), {
      name: 'ValidationException',
    });
    await expect(
      withUnprocessedRetry<string[]>(
        async () => {
          throw refused;
        },
        ['a'],
        sleep,
      ),
    ).rejects.toBe(refused);
    expect(pauses).toEqual([]);
  });
});
