import type { AuthKind } from './define';

/**
 * The Lambda authorizer of each auth kind. API Gateway caches a result by the Authorization header for
 * `cacheTtlSeconds`; the local server caches the same way, so revoking a key takes effect within that time.
 */
export const AUTHORIZERS: Partial<Record<AuthKind, { handler: string; cacheTtlSeconds: number }>> = {
  apiKey: { handler: 'auth/api-key-authorizer', cacheTtlSeconds: 60 },
};
