import type { ApiMethodSpec, ApiStageSpec, RestApiSpec } from '../cloud/model';
import type { ApiKeyStore } from './api-keys';
import { TokenBucket } from './token-bucket';

/** What matching needs of a method: its HTTP method (or ANY) and its path template. */
export interface RoutedMethod {
  httpMethod: string;
  /** `/dcs/{dc_id}/drivers`: fixed segments and `{param}` ones. */
  path: string;
}

/** A method with its path template compiled for matching. */
export interface CompiledMethod<M extends RoutedMethod = ApiMethodSpec> {
  method: M;
  pattern: RegExp;
  paramNames: string[];
  /** Literal segments rank above `{param}` ones, as API Gateway matches them. */
  rank: string;
}

/**
 * The methods ready for matchMethod: the gateway's, and the OpenAPI document's operations in the tests'
 * response contract (test/support/openapi-contract.ts), which route as the gateway does.
 */
export function compileMethods<M extends RoutedMethod>(methods: readonly M[]): CompiledMethod<M>[] {
  return methods
    .map((method) => {
      const paramNames: string[] = [];
      const segments = method.path.split('/').slice(1);
      const pattern = segments
        .map((segment) => {
          const param = segment.match(/^\{(\w+)\}$/);
          if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          paramNames.push(param[1]);
          return '([^/]+)';
        })
        .join('/');
      const rank = segments.map((segment) => (segment.startsWith('{') ? '1' : '0')).join('');
      return { method, pattern: new RegExp(`^/${pattern}/?$`), paramNames, rank };
    })
    .sort((a, b) => a.rank.localeCompare(b.rank));
}

/**
 * The method a request's path reaches, and its path parameters as API Gateway passes them to a proxy
 * integration: each exactly as the client wrote it, still percent-encoded (`R%202026-11-23`, and `%2F` inside
 * one segment). `path` is the raw path of the request (see rawRequestPath); segments split on `/` only.
 */
export function matchMethod<M extends RoutedMethod>(
  methods: readonly CompiledMethod<M>[],
  httpMethod: string,
  path: string,
) {
  for (const compiled of methods) {
    if (compiled.method.httpMethod !== httpMethod && compiled.method.httpMethod !== 'ANY') continue;
    const match = compiled.pattern.exec(path);
    if (!match) continue;
    const pathParameters = Object.fromEntries(
      compiled.paramNames.map((name, index) => [name, match[index + 1] ?? '']),
    );
    return { method: compiled.method, pathParameters };
  }
  return undefined;
}

/**
 * The path of a request as the client sent it, before the query: what API Gateway puts in a REST proxy
 * event's `path` (and, after the stage, `requestContext.path`). Not WHATWG URL's pathname, which would
 * re-encode characters and resolve `.`/`..` and `%2E` segments that API Gateway leaves alone (captures of live
 * REST events: hotsock/voker vokerhttp/testdata/apigwv1-request.json, aws-sam-cli#3524).
 */
export function rawRequestPath(requestTarget: string): string {
  if (!requestTarget.startsWith('/')) return new URL(requestTarget).pathname; // absolute-form
  const query = requestTarget.search(/[?#]/);
  return query === -1 ? requestTarget : requestTarget.slice(0, query);
}

/**
 * The stage's method throttling: each method has a token bucket of its own, sized by its own method setting
 * or else by the stage's default (`/*` `*`, which is how CDK writes stage-wide throttling). Returns whether a
 * request to the method may pass now.
 */
export function methodThrottles(stage: ApiStageSpec): (method: ApiMethodSpec) => boolean {
  const settings = new Map(
    stage.methodSettings.map((setting) => [
      `${setting.httpMethod} ${decodeSettingPath(setting.resourcePath)}`,
      setting,
    ]),
  );
  const fallback = settings.get('* /*') ?? {
    throttlingRateLimit: stage.throttlingRateLimit,
    throttlingBurstLimit: stage.throttlingBurstLimit,
  };
  const buckets = new Map<string, TokenBucket | undefined>();
  return (method) => {
    const key = `${method.httpMethod} ${method.path}`;
    if (!buckets.has(key)) {
      const setting = settings.get(key);
      const rate = setting?.throttlingRateLimit ?? fallback.throttlingRateLimit;
      const burst = setting?.throttlingBurstLimit ?? fallback.throttlingBurstLimit;
      buckets.set(key, rate === undefined || burst === undefined ? undefined : new TokenBucket(rate, burst));
    }
    return buckets.get(key)?.take() ?? true;
  };
}

/**
 * The usage plans of the stage: whether a request with API key `value` to `method` may pass now. The key must
 * be an enabled key of one of the stage's plans ('forbidden' otherwise); each key has token buckets of its
 * own: one per method the plan throttles on this stage (`ApiStages[].Throttle`), drawn first, then one for
 * the plan's throttle, which every method of the key draws on, those with a limit of their own included
 * ('throttled' when either is empty). Keys join plans at run time (the store).
 */
export function usagePlanThrottles(
  api: RestApiSpec,
  stage: ApiStageSpec,
  apiKeys: ApiKeyStore,
): (value: string | undefined, method: ApiMethodSpec) => 'forbidden' | 'throttled' | { keyId: string } {
  const plans = api.usagePlans.filter((plan) => plan.stages.includes(stage.stageName));
  const buckets = new Map<string, TokenBucket | undefined>();
  const take = (id: string, limits: { rateLimit?: number; burstLimit?: number } | undefined) => {
    if (!buckets.has(id)) {
      const { rateLimit, burstLimit } = limits ?? {};
      buckets.set(
        id,
        rateLimit === undefined || burstLimit === undefined
          ? undefined
          : new TokenBucket(rateLimit, burstLimit),
      );
    }
    return buckets.get(id)?.take() ?? true;
  };
  return (value, method) => {
    const key = value === undefined ? undefined : apiKeys.keyByValue(value);
    if (!key?.enabled) return 'forbidden';
    const plan = plans.find((candidate) => apiKeys.inPlan(candidate.id, key.id));
    if (!plan) return 'forbidden';
    const methodLimit = plan.methodThrottles.find(
      (limit) =>
        limit.stage === stage.stageName &&
        limit.path === method.path &&
        limit.httpMethod === method.httpMethod,
    );
    if (methodLimit && !take(`${plan.id}/${key.id}/${method.httpMethod} ${method.path}`, methodLimit))
      return 'throttled';
    return take(`${plan.id}/${key.id}`, plan.throttle) ? { keyId: key.id } : 'throttled';
  };
}

/** A method setting's resource path as CloudFormation has it (`/~1dcs~1{dc_id}`, `/*`) as a plain path. */
function decodeSettingPath(resourcePath: string): string {
  if (resourcePath === '/*') return '/*';
  return resourcePath.slice(1).replaceAll('~1', '/').replaceAll('~0', '~');
}
