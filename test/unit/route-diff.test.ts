import { describe, expect, it } from 'vitest';
import { sameAsJson } from '../../functions/domain/route-diff';
import { acceptedAfter } from '../../functions/domain/route-revision-apply';
import { turnWaitSeconds } from '../../functions/domain/route-revisions';

/** A revision keeps a row whose JSON is unchanged (functions/domain/route-diff.ts): what counts as the same. */
describe('sameAsJson', () => {
  it('ignores field order and fields that are undefined', () => {
    expect(sameAsJson({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameAsJson({ a: 1, gone: undefined }, { a: 1 })).toBe(true);
    expect(sameAsJson([{ a: null }], [{ a: null }])).toBe(true);
  });

  it('compares unset values (a route without a vehicle or warehouses) without throwing', () => {
    expect(sameAsJson(undefined, undefined)).toBe(true);
    expect(sameAsJson(undefined, { id: 'v-1' })).toBe(false);
    expect(sameAsJson({ id: 'v-1' }, undefined)).toBe(false);
    expect(sameAsJson(undefined, null)).toBe(false);
  });

  it('tells apart values that differ anywhere', () => {
    expect(sameAsJson({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameAsJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameAsJson({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(sameAsJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameAsJson([1, 2], [2, 1])).toBe(false);
    expect(sameAsJson({ 0: 'x' }, ['x'])).toBe(false);
    expect(sameAsJson({ a: null }, { a: {} })).toBe(false);
    expect(sameAsJson({ a: { b: [{ c: 1 }] } }, { a: { b: [{ c: '1' }] } })).toBe(false);
    expect(sameAsJson('1', 1)).toBe(false);
  });
});

/** No revision is applied after one of the same route accepted later (functions/domain/route-revision-apply.ts). */
describe('acceptedAfter', () => {
  it('orders revisions by when they were accepted', () => {
    expect(acceptedAfter({ txid: 'rev_a', acceptedAt: 2000 }, { txid: 'rev_b', acceptedAt: 1000 })).toBe(
      true,
    );
    expect(acceptedAfter({ txid: 'rev_b', acceptedAt: 1000 }, { txid: 'rev_a', acceptedAt: 2000 })).toBe(
      false,
    );
  });

  it('orders two revisions of the same millisecond by txid, one way only; a revision is not after itself', () => {
    const [a, b] = [
      { txid: 'rev_a', acceptedAt: 1000 },
      { txid: 'rev_b', acceptedAt: 1000 },
    ];
    expect(acceptedAfter(b, a)).toBe(true);
    expect(acceptedAfter(a, b)).toBe(false);
    expect(acceptedAfter(a, { ...a })).toBe(false);
  });
});

/** A revision whose route another revision holds waits its turn in seconds, not the queue's 30 minutes. */
describe('turnWaitSeconds', () => {
  it('looks again in 2 s at first, a tenth of its wait so far as it grows, at most once a minute', () => {
    expect(turnWaitSeconds(0)).toBe(2);
    expect(turnWaitSeconds(15_000)).toBe(2);
    expect(turnWaitSeconds(100_000)).toBe(10);
    expect(turnWaitSeconds(30 * 60_000)).toBe(60);
  });
});
