import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { readIdempotencyKey } from '../../functions/api/idempotency-key';
import { endpoints } from '../../functions/api/index';
import { buildOpenApiDocument } from '../../functions/api/openapi';

/** An API Gateway event whose Idempotency-Key fields are `values`. */
const withKey = (...values: string[]) =>
  ({
    headers: values.length ? { 'Idempotency-Key': values.at(-1) } : {},
    multiValueHeaders: values.length ? { 'Idempotency-Key': values } : {},
  }) as unknown as APIGatewayProxyEvent;

const UUID = '8e03978e-40d5-43e8-bc93-6894a57f9324';

/** Fields the API takes, each with the key it denotes. */
const TAKEN: [string, string][] = [
  [UUID, UUID],
  [`"${UUID}"`, UUID],
  ['abc', 'abc'],
  ['"abc"', 'abc'],
  ['a:b/c+d=e_f.g~h!*', 'a:b/c+d=e_f.g~h!*'],
  ['"with space and \\"quote\\""', 'with space and "quote"'],
  ['k'.repeat(255), 'k'.repeat(255)],
  [`"${'k'.repeat(255)}"`, 'k'.repeat(255)],
];

/** Fields the API refuses with 1006: neither a bare key nor one quoted string. */
const REFUSED = [
  'two words',
  'a,b',
  'a;b',
  'a"b',
  'a\\b',
  '"a"; p=1',
  '"a", "b"',
  '""',
  'k'.repeat(256),
  `"${'k'.repeat(256)}"`,
  '"\u00e9"',
  '\u00e9',
];

describe('readIdempotencyKey', () => {
  it.each(TAKEN)('takes %j as the key %j: bare and quoted forms denote one key', (field, key) => {
    expect(readIdempotencyKey(withKey(field))).toBe(key);
  });

  it.each(REFUSED)('refuses %j with 1006 naming the header', (field) => {
    expect(() => readIdempotencyKey(withKey(field))).toThrow(
      /^header\.Idempotency-Key: must be 1\.\.255 printable ASCII/,
    );
  });

  it('refuses a key sent twice, and reads none from a request without one', () => {
    expect(() => readIdempotencyKey(withKey('a', 'a'))).toThrow(/it came 2 times/);
    expect(readIdempotencyKey(withKey())).toBeUndefined();
  });
});

describe('the OpenAPI parameter of the Idempotency-Key', () => {
  const document = buildOpenApiDocument(endpoints) as {
    paths: Record<string, Record<string, { parameters?: { name: string; schema: { pattern?: string } }[] }>>;
  };
  const parameters = Object.values(document.paths)
    .flatMap((path) => Object.values(path))
    .flatMap((operation) => operation.parameters ?? [])
    .filter((parameter) => parameter.name === 'Idempotency-Key');

  it('states the format as a pattern that takes exactly the fields the API takes', () => {
    expect(parameters.length).toBeGreaterThan(10);
    const pattern = new RegExp(parameters[0]?.schema.pattern ?? '(?!)', 'u');
    for (const [field] of TAKEN) expect(pattern.test(field), field).toBe(true);
    for (const field of REFUSED.filter((refused) => refused !== '""'))
      expect(pattern.test(field), field).toBe(false);
    expect(pattern.test('""')).toBe(false);
  });
});
