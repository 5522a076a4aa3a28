import { createHash } from 'node:crypto';

/**
 * A login token strong enough for a client to choose (functions/domain/login-tokens.ts): 43 base64url
 * characters derived from the label, then the label, so that the same label names the same token throughout
 * a file. The random-looking part comes first: the strength estimate reads a token's first 64 characters.
 */
export const strongToken = (label: string): string =>
  `${createHash('sha256').update(label).digest('base64url')}-${label}`;
