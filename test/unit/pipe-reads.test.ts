import { describe, expect, it } from 'vitest';
import { nextReadDelay, PIPE_READ_INTERVALS, targetParameter } from '../../local/event-sources/pipes';

/**
 * How long the local pipe waits before it reads the stream again. Pipes' own pace (four reads a second) puts
 * 125 ms on average between a write and its message; while the stream has traffic the local pipe reads more
 * often, and an idle one goes back to Pipes' pace. Only a full page, which leaves records behind it, is
 * followed by a read at once.
 */
describe('the local pipe reading a shard', () => {
  it('reads again at once after a full page (1,000 records, GetRecords’ most), whatever the stream did before', () => {
    expect(nextReadDelay(1000, 0)).toBe(0);
    expect(nextReadDelay(1000, Number.POSITIVE_INFINITY)).toBe(0);
  });

  it('reads again within tens of milliseconds after a page short of full, or none, while the stream had records in the last seconds', () => {
    expect(nextReadDelay(999, 0)).toBe(PIPE_READ_INTERVALS.activeMs);
    expect(nextReadDelay(0, 0)).toBe(PIPE_READ_INTERVALS.activeMs);
    expect(nextReadDelay(0, PIPE_READ_INTERVALS.activeWindowMs - 1)).toBe(PIPE_READ_INTERVALS.activeMs);
    expect(PIPE_READ_INTERVALS.activeMs).toBeGreaterThan(0);
    expect(PIPE_READ_INTERVALS.activeMs).toBeLessThanOrEqual(25);
  });

  it('reads at Pipes’ own pace, four times a second, once the stream has been quiet', () => {
    expect(nextReadDelay(0, PIPE_READ_INTERVALS.activeWindowMs)).toBe(250);
    expect(nextReadDelay(0, Number.POSITIVE_INFINITY)).toBe(250);
  });

  it('takes other intervals', () => {
    const intervals = { activeMs: 5, idleMs: 100, activeWindowMs: 1000 };
    expect(nextReadDelay(3, 999, intervals)).toBe(5);
    expect(nextReadDelay(0, 1000, intervals)).toBe(100);
  });
});

/**
 * A pipe's SQS target parameters (a FIFO queue's message group and deduplication ids): a static value, or a JSON
 * path into the record as the target receives it (Pipes' dynamic path parameters).
 */
describe('the local pipe’s target parameters', () => {
  const record = {
    eventID: 'e1',
    dynamodb: { NewImage: { account_id: { S: 'acc_1' }, sequence: { N: '3' }, list: { L: [{ S: 'a' }] } } },
  };

  it('reads a JSON path to a string of the record, as the feed pipe finds the account and the event', () => {
    expect(targetParameter('$.dynamodb.NewImage.account_id.S', record)).toBe('acc_1');
    expect(targetParameter('$.eventID', record)).toBe('e1');
    expect(targetParameter('$.dynamodb.NewImage.list.L[0].S', record)).toBe('a');
  });

  it('takes a value that is no path as it is', () => {
    expect(targetParameter('all-events', record)).toBe('all-events');
  });

  it('finds nothing where the path leads nowhere, or to an object (SQS then refuses a FIFO message)', () => {
    expect(targetParameter('$.dynamodb.NewImage.event_id.S', record)).toBeUndefined();
    expect(targetParameter('$.dynamodb.NewImage', record)).toBeUndefined();
    expect(targetParameter('$.dynamodb.NewImage.list.L[3].S', record)).toBeUndefined();
  });
});
