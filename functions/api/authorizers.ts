import { apiKeyAuthorizer } from './auth/api-key-authorizer/authorizer';
import type { AuthKind } from './define';

/** A Lambda authorizer: its slice's `handler.ts` (beside the definition module) is the function. */
export interface AuthorizerDefinition {
  /** The URL of the module that defines the authorizer (its `import.meta.url`). */
  module: string;
  /** How long API Gateway (and the local server) caches a result by the Authorization header. */
  cacheTtlSeconds: number;
}

/**
 * The Lambda authorizer of each auth kind the gateway checks. API Gateway caches a result by the
 * Authorization header for `cacheTtlSeconds`; the local server caches the same way, so revoking a key takes
 * effect within that time. Driver tokens have no authorizer: the handler looks the token up on every
 * request (functions/domain/driver-auth.ts), so deleting a driver revokes its token at once without an
 * uncached authorizer invocation in front of every driver-app call.
 */
export const AUTHORIZERS: Partial<Record<AuthKind, AuthorizerDefinition>> = {
  apiKey: apiKeyAuthorizer,
};

/** True when the gateway checks the credentials (an authorizer); false when the handler does, or none. */
export function checkedByGateway(kind: AuthKind): boolean {
  return AUTHORIZERS[kind] !== undefined;
}
