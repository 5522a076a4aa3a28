import { ApiError, ValidationError } from './errors';
import { excerpt, quoteList } from './quote';
import type * as z from './zod';

export type RequestPart = 'path' | 'query' | 'body';

/** The most problems a 1006 message names; the rest are counted ("and 12 more"). */
export const MAX_LISTED_ISSUES = 10;

/**
 * The longest 1006 message, in characters. A message is shown to clients and stored with a failed import (its
 * record and its ROUTE_IMPORT_FAILED event, which travels through SQS), so it stays small whatever was sent: an
 * upload with 100,000 bad items fails with ten of them named.
 */
export const MAX_ISSUES_MESSAGE_CHARS = 1000;

/** The longest message of one problem. */
const MAX_ISSUE_CHARS = 300;

/** The header maps of an API Gateway proxy event. */
interface RequestHeaders {
  headers?: Record<string, string | undefined> | null;
  multiValueHeaders?: Record<string, string[] | undefined> | null;
}

/**
 * Every value the client sent for a header (`name` in lower case), whatever the case it sent: the
 * multi-value map has every field, the single-value one keeps the last, so it is read only without the other.
 */
export function headerValues(event: RequestHeaders, name: string): string[] {
  const named = <V>(headers: Record<string, V> | null | undefined) =>
    Object.entries(headers ?? {}).filter(([key]) => key.toLowerCase() === name);
  return event.multiValueHeaders
    ? named(event.multiValueHeaders).flatMap(([, list]) => list ?? [])
    : named(event.headers).flatMap(([, value]) => (value === undefined ? [] : [value]));
}

/**
 * A request body's JSON: undefined when empty, 1005 when malformed. Shared by the HTTP handlers and the
 * import worker, so an uploaded route fails with the codes and messages its POST would have.
 */
export function parseJsonText(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError('MALFORMED_JSON', 'request body is not valid JSON');
  }
}

/**
 * The path parameters as the client meant them. A REST API passes each to Lambda as it came in the URL, still
 * percent-encoded (`R%202026-11-23` for `R 2026-11-23`); here each is decoded exactly once. `+` stays `+`:
 * only query strings use form encoding. A malformed escape (`%`, `%E0%A4`) is 1006 naming the parameter.
 */
export function decodePathParameters(
  params: Readonly<Record<string, string | undefined>> | null | undefined,
): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(params ?? {})) {
    if (value === undefined) continue;
    try {
      decoded[name] = decodeURIComponent(value);
    } catch {
      throw new ValidationError(
        `path.${name}: is not valid percent-encoding (write "%" as %25; escapes must spell UTF-8)`,
      );
    }
  }
  return decoded;
}

/** The part validated by its schema; 1006 naming every field path that fails. */
export function parsePart<S extends z.ZodMiniType>(
  part: RequestPart,
  schema: S,
  input: unknown,
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationError(describeIssues(part, result.error.issues));
}

/**
 * "driver_name: must be 1..200 characters long; this one has 201; path.dc_id: ...": the first problems, each
 * naming its field, up to MAX_LISTED_ISSUES of them and MAX_ISSUES_MESSAGE_CHARS characters in all, then how
 * many more there are. A client's value is quoted at most as a short excerpt.
 */
export function describeIssues(part: RequestPart, issues: readonly z.core.$ZodIssue[]): string {
  // Room for "; and 123456 more" is kept, so the count always shows.
  const budget = MAX_ISSUES_MESSAGE_CHARS - 20;
  const listed: string[] = [];
  let length = 0;
  for (const issue of issues.slice(0, MAX_LISTED_ISSUES)) {
    const path = issue.path.map(String);
    const field = part === 'body' ? path.join('.') : [part, ...path].join('.');
    const line = `${field === '' ? 'request body' : field}: ${messageOf(issue)}`;
    const room = budget - length - (listed.length > 0 ? 2 : 0);
    if (line.length > room) {
      if (listed.length === 0) listed.push(excerpt(line, room - 1));
      break;
    }
    listed.push(line);
    length += line.length + (listed.length > 1 ? 2 : 0);
  }
  const more = issues.length - listed.length;
  return more > 0 ? `${listed.join('; ')}; and ${more} more` : listed.join('; ');
}

/** zod's message, except where zod would echo what the client sent (the names of unknown keys). */
function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys' && issue.message.startsWith('Unrecognized key')) {
    return `unrecognized key${issue.keys.length === 1 ? '' : 's'} ${quoteList(issue.keys)}`;
  }
  // Messages quote at most excerpts of a value; one longer than this is cut all the same.
  return excerpt(issue.message, MAX_ISSUE_CHARS);
}
