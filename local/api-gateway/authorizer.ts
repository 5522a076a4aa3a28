/** An authorizer's answer as the local API Gateway caches it (per identity, for the authorizer's TTL). */
export interface CachedPolicy {
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
export function parseAuthorizerResult(payload: unknown): Omit<CachedPolicy, 'expiresAt'> | undefined {
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
export function policyAllows(policy: CachedPolicy, methodArn: string): boolean {
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
export function identitySourceValue(
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
