import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { deflate, gzip } from 'node:zlib';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ApiKeyStore } from './api-keys';
import type {
  ApiAuthorizerSpec,
  ApiMethodSpec,
  ApiStageSpec,
  GatewayResponseSpec,
  RestApiSpec,
} from './cloud/model';
import type { InvokeResult, LambdaRuntime } from './lambda/runtime';
import { TokenBucket } from './token-bucket';

/** API Gateway REST limits (https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html). */
export const API_GATEWAY_LIMITS = {
  /** Request body, refused with REQUEST_TOO_LARGE before any Lambda runs. */
  maxBodyBytes: 10 * 1024 * 1024,
  /** The integration timeout of a REST API: past it the client gets 504 whatever the function does. */
  integrationTimeoutMs: 29_000,
} as const;

/**
 * The status each gateway response type has when the API does not set one
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html).
 */
const DEFAULT_STATUS: Record<string, number> = {
  ACCESS_DENIED: 403,
  API_CONFIGURATION_ERROR: 500,
  AUTHORIZER_CONFIGURATION_ERROR: 500,
  AUTHORIZER_FAILURE: 500,
  BAD_REQUEST_BODY: 400,
  BAD_REQUEST_PARAMETERS: 400,
  EXPIRED_TOKEN: 403,
  INTEGRATION_FAILURE: 504,
  INTEGRATION_TIMEOUT: 504,
  INVALID_API_KEY: 403,
  INVALID_SIGNATURE: 403,
  MISSING_AUTHENTICATION_TOKEN: 403,
  QUOTA_EXCEEDED: 429,
  REQUEST_TOO_LARGE: 413,
  RESOURCE_NOT_FOUND: 404,
  THROTTLED: 429,
  UNAUTHORIZED: 401,
  UNSUPPORTED_MEDIA_TYPE: 415,
};

/** API Gateway's own bodies, used where the API customises neither the type nor its DEFAULT_4XX/5XX. */
const DEFAULT_MESSAGE: Record<string, string> = {
  ACCESS_DENIED: 'User is not authorized to access this resource with an explicit deny',
  MISSING_AUTHENTICATION_TOKEN: 'Missing Authentication Token',
  INVALID_API_KEY: 'Forbidden',
  QUOTA_EXCEEDED: 'Limit Exceeded',
  REQUEST_TOO_LARGE: 'Request Too Long',
  THROTTLED: 'Too Many Requests',
  UNAUTHORIZED: 'Unauthorized',
  INTEGRATION_TIMEOUT: 'Endpoint request timed out',
};

interface Reply {
  statusCode: number;
  headers: Record<string, string>;
  body: Buffer;
}

interface CompiledMethod {
  method: ApiMethodSpec;
  pattern: RegExp;
  paramNames: string[];
  /** Literal segments rank above `{param}` ones, as API Gateway matches them. */
  rank: string;
}

interface CachedPolicy {
  principalId: string;
  statements: { effect: string; resources: string[] }[];
  context: Record<string, string | number | boolean>;
  /** The API key value the authorizer names for usage plans (API key source AUTHORIZER). */
  usageIdentifierKey?: string;
  expiresAt: number;
}

export interface ApiGateway {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export interface ApiGatewayOptions {
  api: RestApiSpec;
  lambda: LambdaRuntime;
  accountId: string;
  region: string;
  port?: number;
  /** One line per request on stdout. */
  accessLog?: boolean;
  /** Only ever shorter than API Gateway's 29 s (tests of the timeout itself). */
  integrationTimeoutMs?: number;
  /**
   * API keys and usage plan keys, those the operator adds at run time included (the local AWS endpoint's
   * store); default: the keys the API's templates declare.
   */
  apiKeys?: ApiKeyStore;
}

/**
 * The local stand-in for one REST API stage, built from the API as CloudFormation would create it (methods,
 * their Lambda proxy integrations, authorizers with their identity sources and cache TTL, gateway responses,
 * stage and method throttling, API keys and usage plan throttling, compression) and invoking the functions
 * through the local Lambda runtime.
 * Served at the root of its port (no stage prefix in the path, as with a custom domain).
 */
export async function startApiGateway(options: ApiGatewayOptions): Promise<ApiGateway> {
  const { api, lambda } = options;
  const stage = api.stages[0] as ApiStageSpec;
  if (!stage) throw new Error(`REST API ${api.logicalId} has no stage`);
  const methods = compileMethods(api.methods);
  const authorizers = new Map(api.authorizers.map((authorizer) => [authorizer.logicalId, authorizer]));
  const policyCache = new Map<string, CachedPolicy>();
  const throttle = methodThrottles(stage);
  const apiKeys = options.apiKeys ?? new ApiKeyStore();
  apiKeys.declare(api.id, api.usagePlans);
  const meter = usagePlanThrottles(api, stage, apiKeys);
  const integrationTimeoutMs = Math.min(
    options.integrationTimeoutMs ?? API_GATEWAY_LIMITS.integrationTimeoutMs,
    API_GATEWAY_LIMITS.integrationTimeoutMs,
  );
  const arnPrefix = `arn:aws:execute-api:${options.region}:${options.accountId}:${api.id}/${stage.stageName}`;

  async function respond(req: IncomingMessage, body: Buffer | undefined, requestId: string): Promise<Reply> {
    if (body === undefined) return gatewayResponse('REQUEST_TOO_LARGE');
    const url = new URL(req.url ?? '/', 'http://local');
    const httpMethod = req.method ?? 'GET';
    const match = matchMethod(methods, httpMethod, url.pathname);
    if (!match) return gatewayResponse('MISSING_AUTHENTICATION_TOKEN');
    const { method, pathParameters } = match;

    if (!throttle(method)) return gatewayResponse('THROTTLED');

    const headers = singleValueHeaders(req);
    let authorizerContext: Record<string, unknown> | null = null;
    let usageIdentifierKey: string | undefined;
    if (method.authorizationType === 'CUSTOM') {
      const authorizer = method.authorizerLogicalId ? authorizers.get(method.authorizerLogicalId) : undefined;
      if (!authorizer) return gatewayResponse('API_CONFIGURATION_ERROR');
      const methodArn = `${arnPrefix}/${httpMethod}${url.pathname}`;
      const outcome = await authorize(authorizer, {
        req,
        headers,
        url,
        httpMethod,
        method,
        methodArn,
        requestId,
      });
      if ('reply' in outcome) return outcome.reply;
      authorizerContext = outcome.context;
      usageIdentifierKey = outcome.usageIdentifierKey;
    } else if (method.authorizationType !== 'NONE') {
      throw new Error(`authorization type ${method.authorizationType} is not supported locally`);
    }

    // A method that requires an API key takes it from the API's key source: the X-API-Key header, or the
    // authorizer's usageIdentifierKey. It must be an enabled key of a usage plan of this stage (403
    // INVALID_API_KEY otherwise), and the plan's throttle holds per key (429 THROTTLED).
    let apiKeyIdentity: { apiKey: string; apiKeyId: string } | undefined;
    if (method.apiKeyRequired) {
      const apiKey =
        api.apiKeySource === 'AUTHORIZER'
          ? usageIdentifierKey
          : Object.entries(headers).find(([name]) => name.toLowerCase() === 'x-api-key')?.[1];
      const verdict = meter(apiKey);
      if (verdict === 'forbidden') return gatewayResponse('INVALID_API_KEY');
      if (verdict === 'throttled') return gatewayResponse('THROTTLED');
      apiKeyIdentity = { apiKey: apiKey as string, apiKeyId: verdict.keyId };
    }

    const functionName = method.integration.functionName;
    if (!functionName) return gatewayResponse('API_CONFIGURATION_ERROR');
    const event: APIGatewayProxyEvent = {
      resource: method.path,
      path: url.pathname,
      httpMethod,
      headers,
      multiValueHeaders: Object.fromEntries(
        Object.entries(req.headersDistinct).map(([name, values]) => [name, values ?? []]),
      ),
      queryStringParameters: url.searchParams.size ? Object.fromEntries(url.searchParams) : null,
      multiValueQueryStringParameters: url.searchParams.size ? groupSearchParams(url.searchParams) : null,
      pathParameters: Object.keys(pathParameters).length ? pathParameters : null,
      stageVariables: null,
      body: body.length ? body.toString('utf8') : null,
      isBase64Encoded: false,
      requestContext: {
        accountId: options.accountId,
        apiId: api.id,
        authorizer: authorizerContext,
        domainName: req.headers.host ?? 'localhost',
        httpMethod,
        identity: {
          sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
          userAgent: req.headers['user-agent'] ?? null,
          apiKey: apiKeyIdentity?.apiKey ?? null,
          apiKeyId: apiKeyIdentity?.apiKeyId ?? null,
        } as APIGatewayProxyEvent['requestContext']['identity'],
        path: `/${stage.stageName}${url.pathname}`,
        protocol: `HTTP/${req.httpVersion}`,
        requestId,
        requestTimeEpoch: Date.now(),
        resourceId: method.logicalId,
        resourcePath: method.path,
        stage: stage.stageName,
      },
    };
    const result = await lambda.invoke(functionName, event, {
      requestId,
      deadline: Date.now() + integrationTimeoutMs,
    });
    return integrationReply(result, req);
  }

  async function authorize(
    authorizer: ApiAuthorizerSpec,
    request: {
      req: IncomingMessage;
      headers: Record<string, string>;
      url: URL;
      httpMethod: string;
      method: ApiMethodSpec;
      methodArn: string;
      requestId: string;
    },
  ): Promise<{ context: Record<string, unknown>; usageIdentifierKey?: string } | { reply: Reply }> {
    if (authorizer.type !== 'REQUEST')
      throw new Error(`authorizer type ${authorizer.type} is not supported locally`);
    // Every identity source must be present and non-empty, or API Gateway answers 401 without calling the
    // authorizer. Header names match whatever their case, as HTTP says.
    const identity: string[] = [];
    for (const source of authorizer.identitySources) {
      const value = identitySourceValue(source, request);
      if (!value) return { reply: gatewayResponse('UNAUTHORIZED') };
      identity.push(value);
    }
    const cacheKey = `${authorizer.logicalId}\n${identity.join('\n')}`;
    let policy = authorizer.resultTtlSeconds > 0 ? policyCache.get(cacheKey) : undefined;
    if (!policy || policy.expiresAt <= Date.now()) {
      const event: APIGatewayRequestAuthorizerEvent = {
        type: 'REQUEST',
        methodArn: request.methodArn,
        resource: request.method.path,
        path: request.url.pathname,
        httpMethod: request.httpMethod,
        headers: request.headers,
        multiValueHeaders: Object.fromEntries(
          Object.entries(request.req.headersDistinct).map(([name, values]) => [name, values ?? []]),
        ),
        pathParameters: null,
        queryStringParameters: request.url.searchParams.size
          ? Object.fromEntries(request.url.searchParams)
          : null,
        multiValueQueryStringParameters: request.url.searchParams.size
          ? groupSearchParams(request.url.searchParams)
          : null,
        stageVariables: null,
        requestContext: {
          requestId: request.requestId,
          stage: stage?.stageName,
        } as APIGatewayRequestAuthorizerEvent['requestContext'],
      };
      const result = await lambda.invoke(authorizer.functionName, event, { requestId: request.requestId });
      if (result.kind !== 'success') {
        // A function that throws 'Unauthorized' is how an authorizer refuses; anything else is its failure.
        if (result.kind === 'functionError' && result.errorMessage === 'Unauthorized')
          return { reply: gatewayResponse('UNAUTHORIZED') };
        return { reply: gatewayResponse('AUTHORIZER_FAILURE') };
      }
      const parsed = parseAuthorizerResult(result.payload);
      if (!parsed) return { reply: gatewayResponse('AUTHORIZER_CONFIGURATION_ERROR') };
      policy = { ...parsed, expiresAt: Date.now() + authorizer.resultTtlSeconds * 1000 };
      if (authorizer.resultTtlSeconds > 0) policyCache.set(cacheKey, policy);
    }
    // A cached policy is evaluated against each request's method ARN: it may not cover this method.
    if (!policyAllows(policy, request.methodArn)) return { reply: gatewayResponse('ACCESS_DENIED') };
    return {
      context: { ...policy.context, principalId: policy.principalId },
      usageIdentifierKey: policy.usageIdentifierKey,
    };
  }

  function gatewayResponse(type: string): Reply {
    const defaultStatus = DEFAULT_STATUS[type] ?? 500;
    const spec =
      api.gatewayResponses.find((response) => response.responseType === type) ??
      api.gatewayResponses.find(
        (response) => response.responseType === (defaultStatus < 500 ? 'DEFAULT_4XX' : 'DEFAULT_5XX'),
      );
    return renderGatewayResponse(spec, type, defaultStatus);
  }

  /** What API Gateway makes of an invocation of a Lambda proxy integration. */
  async function integrationReply(result: InvokeResult, req: IncomingMessage): Promise<Reply> {
    switch (result.kind) {
      case 'callerTimeout':
        return gatewayResponse('INTEGRATION_TIMEOUT');
      case 'invokeError':
        // The Lambda API refused the invocation: 500 (https://docs.aws.amazon.com/lambda/latest/dg/services-apigateway-errors.html).
        return withStatus(gatewayResponse('DEFAULT_5XX'), 500);
      case 'functionError':
        return withStatus(gatewayResponse('DEFAULT_5XX'), 502);
      case 'success': {
        const reply = proxyResponse(result.payload);
        // A response that is not a proxy result is the function's fault: 502.
        if (!reply) return withStatus(gatewayResponse('DEFAULT_5XX'), 502);
        return compress(reply, req, api.minimumCompressionSize);
      }
      default:
        throw new Error(`a proxy integration cannot take a ${result.kind} result`);
    }
  }

  const server = createServer((req, res) => {
    const started = Date.now();
    // API Gateway names every request, answered by a function or by itself, in x-amzn-RequestId.
    const requestId = randomUUID();
    res.setHeader('x-amzn-RequestId', requestId);
    readBody(req)
      .then((body) => respond(req, body, requestId))
      .then((reply) => {
        send(res, reply);
        if (options.accessLog)
          console.log(
            `${req.method} ${req.url?.split('?')[0]} ${reply.statusCode} ${Date.now() - started}ms`,
          );
      })
      .catch((error) => {
        console.error('local API Gateway failed', error);
        if (!res.headersSent) send(res, withStatus(gatewayResponse('DEFAULT_5XX'), 500));
        else res.end();
      });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(res: ServerResponse, reply: Reply): void {
  res.writeHead(reply.statusCode, reply.headers);
  res.end(reply.body);
}

function withStatus(reply: Reply, statusCode: number): Reply {
  return { ...reply, statusCode };
}

/** A gateway response as API Gateway renders it: the template for JSON, the static header values. */
function renderGatewayResponse(
  spec: GatewayResponseSpec | undefined,
  type: string,
  defaultStatus: number,
): Reply {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  for (const [parameter, value] of Object.entries(spec?.responseParameters ?? {})) {
    const name = parameter.match(/^gatewayresponse\.header\.(.+)$/)?.[1];
    const literal = value.match(/^'(.*)'$/)?.[1];
    if (name && literal !== undefined) headers[name] = literal;
  }
  const template = spec?.responseTemplates['application/json'];
  const body = template ?? JSON.stringify({ message: DEFAULT_MESSAGE[type] ?? 'Internal server error' });
  return { statusCode: spec?.statusCode ?? defaultStatus, headers, body: Buffer.from(body) };
}

/** A Lambda proxy result, or undefined when API Gateway would call it malformed. */
function proxyResponse(payload: unknown): Reply | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const result = payload as Record<string, unknown>;
  const statusCode = Number(result.statusCode);
  if (!Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) return undefined;
  if (result.body !== undefined && result.body !== null && typeof result.body !== 'string') return undefined;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries((result.headers as Record<string, unknown>) ?? {}))
    headers[name] = String(value);
  for (const [name, values] of Object.entries((result.multiValueHeaders as Record<string, unknown[]>) ?? {}))
    if (Array.isArray(values)) headers[name] = values.map(String).join(', ');
  headers['Content-Type'] ??= 'application/json';
  const text = (result.body as string | undefined) ?? '';
  // Without binary media types on the API (there are none), API Gateway passes a base64 body through as text.
  return { statusCode, headers, body: Buffer.from(text, 'utf8') };
}

const gzipAsync = promisify(gzip);
const deflateAsync = promisify(deflate);

/** Compresses as the API's minimumCompressionSize says, for clients that accept it. */
async function compress(reply: Reply, req: IncomingMessage, minimumSize: number | undefined): Promise<Reply> {
  if (minimumSize === undefined || reply.body.length < minimumSize) return reply;
  const accepted = String(req.headers['accept-encoding'] ?? '');
  const encoding = /\bgzip\b/.test(accepted) ? 'gzip' : /\bdeflate\b/.test(accepted) ? 'deflate' : undefined;
  if (!encoding) return reply;
  const body = encoding === 'gzip' ? await gzipAsync(reply.body) : await deflateAsync(reply.body);
  return { ...reply, headers: { ...reply.headers, 'Content-Encoding': encoding }, body };
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

/** Resolves with the body, or undefined once it passes API Gateway's limit. */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= API_GATEWAY_LIMITS.maxBodyBytes) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > API_GATEWAY_LIMITS.maxBodyBytes ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function compileMethods(methods: readonly ApiMethodSpec[]): CompiledMethod[] {
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

function matchMethod(methods: CompiledMethod[], httpMethod: string, path: string) {
  for (const compiled of methods) {
    if (compiled.method.httpMethod !== httpMethod && compiled.method.httpMethod !== 'ANY') continue;
    const match = compiled.pattern.exec(path);
    if (!match) continue;
    try {
      const pathParameters = Object.fromEntries(
        compiled.paramNames.map((name, index) => [name, decodeURIComponent(match[index + 1] ?? '')]),
      );
      return { method: compiled.method, pathParameters };
    } catch {
      return undefined; // malformed percent-encoding: no method can match it
    }
  }
  return undefined;
}

/**
 * The stage's method throttling: each method has a token bucket of its own, sized by its own method setting
 * or else by the stage's default (`/*` `*`, which is how CDK writes stage-wide throttling). Returns whether a
 * request to the method may pass now.
 */
function methodThrottles(stage: ApiStageSpec): (method: ApiMethodSpec) => boolean {
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
 * The usage plans of the stage: whether a request with API key `value` may pass now. The key must be an
 * enabled key of one of the stage's plans ('forbidden' otherwise); each key has a token bucket of its own,
 * sized by its plan's throttle ('throttled' when empty). Keys join plans at run time (the store).
 */
function usagePlanThrottles(
  api: RestApiSpec,
  stage: ApiStageSpec,
  apiKeys: ApiKeyStore,
): (value: string | undefined) => 'forbidden' | 'throttled' | { keyId: string } {
  const plans = api.usagePlans.filter((plan) => plan.stages.includes(stage.stageName));
  const buckets = new Map<string, TokenBucket | undefined>();
  return (value) => {
    const key = value === undefined ? undefined : apiKeys.keyByValue(value);
    if (!key?.enabled) return 'forbidden';
    const plan = plans.find((candidate) => apiKeys.inPlan(candidate.id, key.id));
    if (!plan) return 'forbidden';
    const id = `${plan.id}/${key.id}`;
    if (!buckets.has(id)) {
      const { rateLimit, burstLimit } = plan.throttle ?? {};
      buckets.set(
        id,
        rateLimit === undefined || burstLimit === undefined
          ? undefined
          : new TokenBucket(rateLimit, burstLimit),
      );
    }
    return buckets.get(id)?.take() === false ? 'throttled' : { keyId: key.id };
  };
}

/** A method setting's resource path as CloudFormation has it (`/~1dcs~1{dc_id}`, `/*`) as a plain path. */
function decodeSettingPath(resourcePath: string): string {
  if (resourcePath === '/*') return '/*';
  return resourcePath.slice(1).replaceAll('~1', '/').replaceAll('~0', '~');
}

function singleValueHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    headers[req.rawHeaders[i] as string] = req.rawHeaders[i + 1] as string;
  return headers;
}

function groupSearchParams(params: URLSearchParams): Record<string, string[]> {
  const grouped: Record<string, string[]> = {};
  for (const [key, value] of params) grouped[key] = [...(grouped[key] ?? []), value];
  return grouped;
}
