import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The captures of real AWS events under test/fixtures/aws/ (its README names where each comes from). */
export type CaptureName = 'rest-proxy-encoded-path' | 'rest-proxy-lambda-authorizer';

/** A fresh copy of a capture, to change at will. */
export function capture<T = Record<string, unknown>>(name: CaptureName): T {
  return JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/aws', `${name}.json`), 'utf8')) as T;
}

/** Percent-encoding as clients put an id in a path (encodeURIComponent's: `R%202026-11-23`). */
export const inPath = (id: string) => encodeURIComponent(id);
