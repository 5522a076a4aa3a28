import type { z } from 'zod';
import { ApiError, ValidationError } from './errors';

export type RequestPart = 'path' | 'query' | 'body';

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

/** The part validated by its schema; 1006 naming every field path that fails. */
export function parsePart<S extends z.ZodType>(part: RequestPart, schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationError(describeIssues(part, result.error.issues));
}

/** "driver_name: Too big: expected string to have <=200 characters; path.dc_id: ..." */
export function describeIssues(part: RequestPart, issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path.map(String);
      const field = part === 'body' ? path.join('.') : [part, ...path].join('.');
      if (field === '') return `request body: ${issue.message}`;
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}
