import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The captures of real AWS events under test/fixtures/aws/ (its README names where each comes from). */
export type CaptureName =
  | 'rest-proxy-encoded-path'
  | 'rest-proxy-lambda-authorizer'
  | 'rest-request-authorizer'
  | 'sqs-s3-object-created'
  | 's3-test-event'
  | 'pipe-dynamodb-record';

/** A fresh copy of a capture, to change at will. */
export function capture<T = Record<string, unknown>>(name: CaptureName): T {
  return JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/aws', `${name}.json`), 'utf8')) as T;
}

/** JSON's type of a value, as a capture and a local event are compared: `null` and `array` apart. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Whether a field path (`requestContext.identity.sourceIp`) is one of `patterns` (`*` is one key). */
function listed(path: string, patterns: Iterable<string>): boolean {
  for (const pattern of patterns) {
    const expression = new RegExp(
      `^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^.]+')}$`,
    );
    if (expression.test(path)) return true;
  }
  return false;
}

export interface Comparison {
  /** Fields whose values differ for a reason (path pattern -> why); their names and types still must agree. */
  valuesThatDiffer: Readonly<Record<string, string>>;
  /**
   * Objects that are maps of the request's own data (headers, query, path parameters): their keys are not
   * compared, only that each value has the type and encoding of the capture's values.
   */
  maps?: readonly string[];
}

/**
 * Every difference between a local event and a capture of the same request or message: a field one has and
 * the other has not, a different JSON type, or a different value where the value is not listed as one that
 * differs. Returns them as lines (`requestContext.path: "/v1/a" here, "/prod/a" on AWS`); none is a match.
 */
export function differences(local: unknown, aws: unknown, comparison: Comparison, at = ''): string[] {
  const found: string[] = [];
  const name = at === '' ? '(the event)' : at;
  if (jsonType(local) !== jsonType(aws)) {
    return [`${name}: ${jsonType(local)} here, ${jsonType(aws)} on AWS (${JSON.stringify(aws)})`];
  }
  if (jsonType(aws) === 'object') {
    const ours = local as Record<string, unknown>;
    const theirs = aws as Record<string, unknown>;
    if (listed(at, comparison.maps ?? [])) {
      const types = new Set(Object.values(theirs).map(jsonType));
      for (const [key, value] of Object.entries(ours))
        if (types.size > 0 && !types.has(jsonType(value)))
          found.push(`${at}.${key}: ${jsonType(value)} here, AWS's values are ${[...types].join(' or ')}`);
      return found;
    }
    for (const key of new Set([...Object.keys(ours), ...Object.keys(theirs)])) {
      const path = at === '' ? key : `${at}.${key}`;
      if (!(key in theirs)) found.push(`${path}: here only (${JSON.stringify(ours[key])})`);
      else if (!(key in ours)) found.push(`${path}: on AWS only (${JSON.stringify(theirs[key])})`);
      else found.push(...differences(ours[key], theirs[key], comparison, path));
    }
    return found;
  }
  if (jsonType(aws) === 'array') {
    const ours = local as unknown[];
    const theirs = aws as unknown[];
    if (!listed(at, Object.keys(comparison.valuesThatDiffer)) && ours.length !== theirs.length)
      found.push(`${name}: ${ours.length} entries here, ${theirs.length} on AWS`);
    theirs.forEach((value, index) => {
      if (index < ours.length) found.push(...differences(ours[index], value, comparison, `${at}.${index}`));
    });
    return found;
  }
  if (!listed(at, Object.keys(comparison.valuesThatDiffer)) && local !== aws)
    found.push(`${name}: ${JSON.stringify(local)} here, ${JSON.stringify(aws)} on AWS`);
  return found;
}

/** Percent-encoding as clients put an id in a path (encodeURIComponent's: `R%202026-11-23`). */
export const inPath = (id: string) => encodeURIComponent(id);
