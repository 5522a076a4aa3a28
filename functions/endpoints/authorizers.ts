import type { AuthKind } from './define';

/**
 * The Lambda authorizer of each auth kind the gateway checks. API Gateway caches a result by the
 * Authorization header for `cacheTtlSeconds`; the local server caches the same way, so revoking a key takes
 * effect within that time. Driver tokens have no authorizer: the handler looks the token up on every
 * request (functions/domain/driver-auth.ts), so deleting a driver revokes its token at once without an
 * uncached authorizer invocation in front of every driver-app call.
 */
export const AUTHORIZERS: Partial<Record<AuthKind, { handler: string; cacheTtlSeconds: number }>> = {
  apiKey: { handler: 'auth/api-key-authorizer', cacheTtlSeconds: 60 },
};

/** True when the gateway checks the credentials (an authorizer); false when the handler does, or none. */
export function checkedByGateway(kind: AuthKind): boolean {
  return AUTHORIZERS[kind] !== undefined;
}
