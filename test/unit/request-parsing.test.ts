import { describe, expect, it } from 'vitest';
import { decodeNextToken, encodeNextToken } from '../../functions/data/pagination';
import { bearerSecret } from '../../functions/shared/bearer';
import {
  decodePathParameters,
  describeIssues,
  MAX_ISSUES_MESSAGE_CHARS,
  MAX_LISTED_ISSUES,
} from '../../functions/shared/request-parsing';
import * as z from '../../functions/shared/zod';

describe('describeIssues', () => {
  const schema = z.object({ route: z.object({ waypoints: z.array(z.object({ id: z.string() })) }) });
  const issues = (input: unknown) => schema.safeParse(input).error?.issues ?? [];

  it('names the field path of a body error with dots and indexes', () => {
    expect(describeIssues('body', issues({ route: { waypoints: [{ id: 'a' }, { id: 7 }] } }))).toMatch(
      /^route\.waypoints\.1\.id: /,
    );
  });

  it('prefixes path and query errors with their location', () => {
    expect(describeIssues('query', issues({}))).toMatch(/^query\.route: /);
    expect(describeIssues('path', issues({}))).toMatch(/^path\.route: /);
  });

  it('speaks of the request body when the body itself has the wrong type', () => {
    expect(describeIssues('body', issues('text'))).toMatch(/^request body: /);
  });

  it('lists the first ten problems and counts the rest, within 1,000 characters', () => {
    const waypoints = Array.from({ length: 50_000 }, () => ({ id: 7 }));
    const message = describeIssues('body', issues({ route: { waypoints } }));
    expect(message.match(/route\.waypoints\.\d+\.id: /g)).toHaveLength(MAX_LISTED_ISSUES);
    expect(message).toMatch(/; and 49990 more$/);
    expect(message.length).toBeLessThanOrEqual(MAX_ISSUES_MESSAGE_CHARS);
  });

  it('names fewer problems when they would pass 1,000 characters, and counts the rest', () => {
    const long = z.string().check(z.refine(() => false, 'x'.repeat(290)));
    const message = describeIssues(
      'body',
      z.array(long).safeParse(['a', 'b', 'c', 'd', 'e']).error?.issues ?? [],
    );
    expect(message).toMatch(/^0: x{290}; 1: x{290}; 2: x{290}; and 2 more$/);
    // A message longer than 300 characters (none of ours is) is cut to 300 and an ellipsis.
    const huge = z.string().check(z.refine(() => false, 'y'.repeat(10_000)));
    const cut = describeIssues('body', z.array(huge).safeParse(['a', 'b', 'c', 'd']).error?.issues ?? []);
    expect(cut).toMatch(/^0: y{300}…; 1: y{300}…; 2: y{300}…; and 1 more$/);
    expect(cut.length).toBeLessThanOrEqual(MAX_ISSUES_MESSAGE_CHARS);
  });

  it('quotes unknown keys as short excerpts', () => {
    const strict = z.strictObject({ a: z.string() });
    const keys = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`${i}${'k'.repeat(100_000)}`, 1]));
    const message = describeIssues('body', strict.safeParse({ a: 'x', ...keys }).error?.issues ?? []);
    expect(message).toMatch(
      /^request body: unrecognized keys '0k+…', '1k+…', '2k+…', '3k+…', '4k+…' and 15 more$/,
    );
  });
});

describe('bearerSecret', () => {
  it.each([
    [{ Authorization: 'Bearer abc' }, 'abc'],
    [{ authorization: 'bearer abc' }, 'abc'],
    [{ AUTHORIZATION: 'Bearer abc' }, 'abc'],
    [{ Authorization: 'Bearer' }, undefined],
    [{ Authorization: 'Bearer a b' }, undefined],
    [{ Authorization: 'Basic abc' }, undefined],
    [{ Authorization: `Bearer ${'k'.repeat(513)}` }, undefined],
    [{}, undefined],
    [null, undefined],
  ])('reads %j as %s', (headers, expected) => {
    expect(bearerSecret(headers)).toBe(expected);
  });
});

describe('next_token', () => {
  it('round-trips a key of the listed partition', () => {
    const key = { pk: 'DC#a/dc-1', sk: 'DRIVER#d-9' };
    expect(decodeNextToken(encodeNextToken(key), 'DC#a/dc-1', 'DRIVER#')).toEqual(key);
  });

  it.each([
    ['another partition', encodeNextToken({ pk: 'DC#b/dc-1', sk: 'DRIVER#x' })],
    ['another entity', encodeNextToken({ pk: 'DC#a/dc-1', sk: 'ROUTE#x' })],
    ['garbage', 'not-a-token'],
    ['JSON that is not a key', Buffer.from('[1,2]').toString('base64url')],
    // DynamoDB refuses a sort key over 1,024 bytes: such a start key would fail the query with a 500.
    [
      'a sort key too long for DynamoDB',
      encodeNextToken({ pk: 'DC#a/dc-1', sk: `DRIVER#${'é'.repeat(510)}` }),
    ],
  ])('refuses a token for %s with a validation error', (_, token) => {
    expect(() => decodeNextToken(token, 'DC#a/dc-1', 'DRIVER#')).toThrow(/next_token/);
  });
});

describe('decodePathParameters', () => {
  it('decodes each path parameter exactly once; "+" stays "+"', () => {
    expect(
      decodePathParameters({ dc_id: 'DC%201', route_id: 'R%20100%2525%2B+%C3%A9-%E6%9D%B1-%F0%9F%9A%9A' }),
    ).toEqual({ dc_id: 'DC 1', route_id: 'R 100%25++é-東-🚚' });
    expect(decodePathParameters(null)).toEqual({});
  });

  it.each(['a%', 'a%2', 'a%ZZ', 'a%E6%9D', 'a%C0%AF'])(
    'refuses %j with 1006 naming the parameter',
    (value) => {
      expect(() => decodePathParameters({ route_id: value })).toThrow(
        expect.objectContaining({ code: 1006, message: expect.stringMatching(/^path\.route_id: /) }),
      );
    },
  );
});
