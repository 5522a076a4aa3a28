import { describe, expect, it } from 'vitest';
import { PIPE_READ_INTERVALS, quietReadDelay } from '../../local/event-sources/pipes';

/**
 * How long the local pipe waits after a read of the stream that gave nothing. Pipes' own pace (four reads a
 * second) puts 125 ms on average between a write and its message; while the stream has traffic the local
 * pipe reads more often, and an idle one goes back to Pipes' pace.
 */
describe('the local pipe reading a quiet shard', () => {
  it('reads again within tens of milliseconds while the stream had records in the last seconds', () => {
    expect(quietReadDelay(0)).toBe(PIPE_READ_INTERVALS.activeMs);
    expect(quietReadDelay(PIPE_READ_INTERVALS.activeWindowMs - 1)).toBe(PIPE_READ_INTERVALS.activeMs);
    expect(PIPE_READ_INTERVALS.activeMs).toBeLessThanOrEqual(25);
  });

  it('reads at Pipes’ own pace, four times a second, once the stream has been quiet', () => {
    expect(quietReadDelay(PIPE_READ_INTERVALS.activeWindowMs)).toBe(250);
    expect(quietReadDelay(Number.POSITIVE_INFINITY)).toBe(250);
  });

  it('takes other intervals', () => {
    const intervals = { activeMs: 5, idleMs: 100, activeWindowMs: 1000 };
    expect(quietReadDelay(999, intervals)).toBe(5);
    expect(quietReadDelay(1000, intervals)).toBe(100);
  });
});
