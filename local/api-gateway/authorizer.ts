import type { ApiAuthorizerSpec } from '../cloud/model';
import type { LambdaRuntime } from '../lambda/runtime';
import { authorizerEvent, type GatewayRequest } from './events';

/** What a REQUEST authorizer made of a request: let through with its context, or a gateway response type. */
export type AuthorizerVerdict =
  | { admitted: true; context: Record<string, unknown>; usageIdentifierKey?: string }
  | {
      admitted: false;
      refusal: 'UNAUTHORIZED' | 'ACCESS_DENIED' | 'AUTHORIZER_FAILURE' | 'AUTHORIZER_CONFIGURATION_ERROR';
    };

/**
 * The stage's REQUEST authorizers: identity sources checked before any call, the function invoked with the
 * authorizer event, its policy cached per identity for the authorizer's TTL and evaluated against each
 * request's method ARN.
 */
export class RequestAuthorizers {
  readonly #byLogicalId: Map<string, ApiAuthorizerSpec>;
  readonly #policyCache = new Map<string, CachedPolicy>();

  constructor(
    authorizers: readonly ApiAuthorizerSpec[],
    private readonly lambda: LambdaRuntime,
    /** `arn:aws:execute-api:<region>:<account>:<api>/<stage>`, which a method ARN starts with. */
    private readonly arnPrefix: string,
  ) {
    this.#byLogicalId = new Map(authorizers.map((authorizer) => [authorizer.logicalId, authorizer]));
  }

  /** The authorizer of that logical id, if the API has it. */
  find(logicalId: string | undefined): ApiAuthorizerSpec | undefined {
    return logicalId ? this.#byLogicalId.get(logicalId) : undefined;
  }

  async authorize(authorizer: ApiAuthorizerSpec, request: GatewayRequest): Promise<AuthorizerVerdict> {
    if (authorizer.type !== 'REQUEST')
      throw new Error(`authorizer type ${authorizer.type} is not supported locally`);
    // Every identity source must be present and non-empty, or API Gateway answers 401 without calling the
    // authorizer. Header names match whatever their case, as HTTP says.
    const identity: string[] = [];
    for (const source of authorizer.identitySources) {
      const value = identitySourceValue(source, { headers: request.headers.single, url: request.url });
      if (!value) return { admitted: false, refusal: 'UNAUTHORIZED' };
      identity.push(value);
    }
    const methodArn = `${this.arnPrefix}/${request.httpMethod}${request.path}`;
    const cacheKey = `${authorizer.logicalId}\n${identity.join('\n')}`;
    let policy = authorizer.resultTtlSeconds > 0 ? this.#policyCache.get(cacheKey) : undefined;
    // The authorizer's latency, which API Gateway reports to the function; 0 for a cached result (what AWS
    // reports then, no capture shows).
    let integrationLatency = 0;
    if (!policy || policy.expiresAt <= Date.now()) {
      const started = Date.now();
      const result = await this.lambda.invoke(authorizer.functionName, authorizerEvent(request, methodArn), {
        requestId: request.requestId,
      });
      integrationLatency = Date.now() - started;
      if (result.kind !== 'success') {
        // A function that throws 'Unauthorized' is how an authorizer refuses; anything else is its failure.
        if (result.kind === 'functionError' && result.errorMessage === 'Unauthorized')
          return { admitted: false, refusal: 'UNAUTHORIZED' };
        return { admitted: false, refusal: 'AUTHORIZER_FAILURE' };
      }
      const parsed = parseAuthorizerResult(result.payload);
      if (!parsed) return { admitted: false, refusal: 'AUTHORIZER_CONFIGURATION_ERROR' };
      policy = { ...parsed, expiresAt: Date.now() + authorizer.resultTtlSeconds * 1000 };
      if (authorizer.resultTtlSeconds > 0) this.#policyCache.set(cacheKey, policy);
    }
    // A cached policy is evaluated against each request's method ARN: it may not cover this method.
    if (!policyAllows(policy, methodArn)) return { admitted: false, refusal: 'ACCESS_DENIED' };
    return {
      admitted: true,
      context: { ...policy.context, principalId: policy.principalId, integrationLatency },
      usageIdentifierKey: policy.usageIdentifierKey,
    };
  }
}

/** An authorizer's answer as the local API Gateway caches it (per identity, for the authorizer's TTL). */
interface CachedPolicy {
  principalId: string;
  statements: { effect: string; resources: string[] }[];
  context: Record<string, string | number | boolean>;
  /** The API key value the authorizer names for usage plans (API key source AUTHORIZER). */
  usageIdentifierKey?: string;
  expiresAt: number;
}

/**
 * An authorizer's result as API Gateway accepts it: a principal and a policy, and a context whose values are
 * strings, numbers or booleans only (anything else is AUTHORIZER_CONFIGURATION_ERROR).
 */
function parseAuthorizerResult(payload: unknown): Omit<CachedPolicy, 'expiresAt'> | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const result = payload as {
    principalId?: unknown;
    policyDocument?: { Statement?: unknown };
    context?: Record<string, unknown>;
    usageIdentifierKey?: unknown;
  };
  if (typeof result.principalId !== 'string' || !Array.isArray(result.policyDocument?.Statement))
    return undefined;
  const usageIdentifierKey = result.usageIdentifierKey;
  if (usageIdentifierKey !== undefined && typeof usageIdentifierKey !== 'string') return undefined;
  const context: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(result.context ?? {})) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      return undefined;
    context[key] = value;
  }
  const statements = (result.policyDocument.Statement as Record<string, unknown>[]).map((statement) => ({
    effect: String(statement.Effect),
    resources: [statement.Resource as string | string[]]
      .flat()
      .filter((r): r is string => typeof r === 'string'),
  }));
  return { principalId: result.principalId, statements, context, usageIdentifierKey };
}

/** An explicit Deny wins; otherwise some Allow must cover the method ARN. */
function policyAllows(policy: CachedPolicy, methodArn: string): boolean {
  const matching = policy.statements.filter((statement) =>
    statement.resources.some((resource) => arnMatches(resource, methodArn)),
  );
  return !matching.some((s) => s.effect === 'Deny') && matching.some((s) => s.effect === 'Allow');
}

/** Matches an execute-api ARN pattern with `*` and `?` wildcards. */
function arnMatches(pattern: string, arn: string): boolean {
  const regex = pattern
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${regex}$`).test(arn);
}

/** The value of an identity source such as `method.request.header.Authorization`. */
function identitySourceValue(
  source: string,
  request: { headers: Record<string, string>; url: URL },
): string | undefined {
  const header = source.match(/^method\.request\.header\.(.+)$/)?.[1];
  if (header) {
    const wanted = header.toLowerCase();
    const found = Object.entries(request.headers).find(([name]) => name.toLowerCase() === wanted);
    return found?.[1] || undefined;
  }
  const query = source.match(/^method\.request\.querystring\.(.+)$/)?.[1];
  if (query) return request.url.searchParams.get(query) || undefined;
  throw new Error(`identity source ${source} is not supported locally`);
}
