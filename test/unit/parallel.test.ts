import { describe, expect, it } from 'vitest';
import { chunks, inParallel, sharedWhileInFlight } from '../../functions/shared/parallel';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('inParallel', () => {
  it('keeps the input order and never runs more than the parallelism at once', async () => {
    let running = 0;
    let peak = 0;
    const results = await inParallel([5, 1, 4, 2, 3], 2, async (value) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, value));
      running--;
      return value * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
  });

  it('starts nothing after a failure and throws only once the calls in flight have settled', async () => {
    const started: number[] = [];
    const settled: number[] = [];
    const run = inParallel([0, 1, 2, 3, 4, 5], 2, async (value) => {
      started.push(value);
      if (value === 0) throw new Error('first failed');
      await tick();
      settled.push(value);
    });
    await expect(run).rejects.toThrow('first failed');
    // 0 fails at once; its worker stops; the other worker's call (1) settles before the rejection.
    expect(started).toEqual([0, 1]);
    expect(settled).toEqual([1]);
  });
});

describe('chunks', () => {
  it('splits into pieces of the size, the last one shorter', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunks([], 3)).toEqual([]);
  });
});

describe('sharedWhileInFlight', () => {
  /** A read that counts its calls and settles when the test says so. */
  function controlledRead() {
    const calls: string[] = [];
    const pending: { key: string; settle: (fail?: boolean) => void }[] = [];
    const read = (accountId: string, itemId: string) => {
      calls.push(`${accountId}/${itemId}`);
      const call = calls.length;
      return new Promise<string>((resolve, reject) => {
        pending.push({
          key: `${accountId}/${itemId}`,
          settle: (fail) => (fail ? reject(new Error('read failed')) : resolve(`${itemId}@${call}`)),
        });
      });
    };
    return { calls, pending, read };
  }

  it('makes one read for the calls of one key made while it is in flight, one per key', async () => {
    const { calls, pending, read } = controlledRead();
    const shared = sharedWhileInFlight((accountId: string, itemId: string) => `${accountId}/${itemId}`, read);
    const results = Promise.all([
      shared('acc-1', 'wh-1'),
      shared('acc-1', 'wh-1'),
      shared('acc-1', 'wh-2'),
      shared('acc-2', 'wh-1'),
      shared('acc-1', 'wh-1'),
    ]);
    expect(calls).toEqual(['acc-1/wh-1', 'acc-1/wh-2', 'acc-2/wh-1']);
    for (const read of pending) read.settle();
    const [a, b, c, d, e] = await results;
    expect(a).toBe(b);
    expect(e).toBe(a);
    expect(new Set([a, c, d]).size).toBe(3);
  });

  it("never makes one key's calls wait on another key's read", async () => {
    const { pending, read } = controlledRead();
    const shared = sharedWhileInFlight((accountId: string, itemId: string) => `${accountId}/${itemId}`, read);
    const slow = shared('acc-1', 'wh-1');
    const fast = shared('acc-2', 'wh-1');
    pending.find((p) => p.key === 'acc-2/wh-1')?.settle();
    await expect(fast).resolves.toMatch(/^wh-1@/);
    pending.find((p) => p.key === 'acc-1/wh-1')?.settle();
    await slow;
  });

  it('keeps nothing once the read settled: the next call reads again, after a success or a failure', async () => {
    const { calls, pending, read } = controlledRead();
    const shared = sharedWhileInFlight((accountId: string, itemId: string) => `${accountId}/${itemId}`, read);
    const first = shared('acc-1', 'wh-1');
    const joined = shared('acc-1', 'wh-1');
    pending[0]?.settle(true);
    await expect(first).rejects.toThrow('read failed');
    await expect(joined).rejects.toThrow('read failed');
    const second = shared('acc-1', 'wh-1');
    pending[1]?.settle();
    await expect(second).resolves.toBe('wh-1@2');
    const third = shared('acc-1', 'wh-1');
    pending[2]?.settle();
    await expect(third).resolves.toBe('wh-1@3');
    expect(calls).toHaveLength(3);
  });
});
