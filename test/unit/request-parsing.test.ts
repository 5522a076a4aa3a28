import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { decodeNextToken, encodeNextToken } from '../../functions/data/pagination';
import { bearerSecret } from '../../functions/shared/bearer';
import { describeIssues } from '../../functions/shared/request-parsing';

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
  ])('refuses a token for %s with a validation error', (_, token) => {
    expect(() => decodeNextToken(token, 'DC#a/dc-1', 'DRIVER#')).toThrow(/next_token/);
  });
});
