import type { AuthorizerDefinition } from '../../authorizers';

/** The API key authorizer; `handler.ts` beside this module is its Lambda. */
export const apiKeyAuthorizer: AuthorizerDefinition = { module: import.meta.url, cacheTtlSeconds: 60 };
