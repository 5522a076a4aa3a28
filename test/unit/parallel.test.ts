import { describe, expect, it } from 'vitest';
import { chunks, inParallel } from '../../functions/shared/parallel';

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
