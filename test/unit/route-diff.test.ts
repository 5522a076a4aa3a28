import { describe, expect, it } from 'vitest';
import { sameAsJson } from '../../functions/domain/route-diff';

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
