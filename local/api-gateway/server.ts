import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ApiKeyStore } from './api-keys';
import type { ApiAuthorizerSpec, ApiMethodSpec, ApiStageSpec, RestApiSpec } from './cloud/model';
import {
  type CachedPolicy,
  identitySourceValue,
  parseAuthorizerResult,
  policyAllows,
} from './gateway-authorizer-policy';
import {
  compileMethods,
  matchMethod,
  methodThrottles,
  rawRequestPath,
  usagePlanThrottles,
} from './gateway-methods';
import {
  compress,
  DEFAULT_STATUS,
  proxyResponse,
  type Reply,
  renderGatewayResponse,
  send,
  withStatus,
} from './gateway-responses';
import type { InvokeResult, LambdaRuntime } from './lambda/runtime';

/** API Gateway REST limits (https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html). */
export const API_GATEWAY_LIMITS = {
  /** Request body, refused with REQUEST_TOO_LARGE before any Lambda runs. */
  maxBodyBytes: 10 * 1024 * 1024,
  /** The integration timeout of a REST API: past it the client gets 504 whatever the function does. */
  integrationTimeoutMs: 29_000,
} as const;

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
 * stage and method throttling, API keys and usage plan throttling per key and per method, compression) and
 * invoking the functions through the local Lambda runtime.
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
  /** The stage's deployment, named as API Gateway names one (six lower-case letters and digits). */
  const deploymentId = randomBytes(8).toString('hex').slice(0, 6);

  /** One request as both the authorizer's and the function's events describe it. */
  interface GatewayRequest {
    req: IncomingMessage;
    url: URL;
    path: string;
    httpMethod: string;
    method: ApiMethodSpec;
    pathParameters: Record<string, string>;
    requestId: string;
    /** As the authorizer gets them (the proxy event's lack Content-Length). */
    headers: ReturnType<typeof eventHeaders>;
    context: ReturnType<typeof requestContext>;
  }

  async function respond(req: IncomingMessage, body: Buffer | undefined, requestId: string): Promise<Reply> {
    if (body === undefined) return gatewayResponse('REQUEST_TOO_LARGE');
    const url = new URL(req.url ?? '/', 'http://local');
    // The path as sent, still percent-encoded, as API Gateway passes it on; the query decoded (`+` a space).
    const path = rawRequestPath(req.url ?? '/');
    const httpMethod = req.method ?? 'GET';
    const match = matchMethod(methods, httpMethod, path);
    if (!match) return gatewayResponse('MISSING_AUTHENTICATION_TOKEN');
    const { method, pathParameters } = match;

    const request: GatewayRequest = {
      req,
      url,
      path,
      httpMethod,
      method,
      pathParameters,
      requestId,
      headers: eventHeaders(req, { contentLength: true }),
      context: requestContext(req, path, httpMethod, method, requestId),
    };
    const headers = eventHeaders(req, { contentLength: false });
    let authorizerContext: Record<string, unknown> | undefined;
    let usageIdentifierKey: string | undefined;
    if (method.authorizationType === 'CUSTOM') {
      const authorizer = method.authorizerLogicalId ? authorizers.get(method.authorizerLogicalId) : undefined;
      if (!authorizer) return gatewayResponse('API_CONFIGURATION_ERROR');
      const outcome = await authorize(authorizer, request);
      if ('reply' in outcome) return outcome.reply;
      authorizerContext = outcome.context;
      usageIdentifierKey = outcome.usageIdentifierKey;
    } else if (method.authorizationType !== 'NONE') {
      throw new Error(`authorization type ${method.authorizationType} is not supported locally`);
    }

    // A method that requires an API key takes it from the API's key source: the X-API-Key header, or the
    // authorizer's usageIdentifierKey. It must be an enabled key of a usage plan of this stage (403
    // INVALID_API_KEY otherwise), and the plan's throttles hold per key (429 THROTTLED).
    let apiKeyIdentity: { apiKey: string; apiKeyId: string } | undefined;
    if (method.apiKeyRequired) {
      const apiKey =
        api.apiKeySource === 'AUTHORIZER'
          ? usageIdentifierKey
          : Object.entries(headers.single).find(([name]) => name.toLowerCase() === 'x-api-key')?.[1];
      const verdict = meter(apiKey, method);
      if (verdict === 'forbidden') return gatewayResponse('INVALID_API_KEY');
      if (verdict === 'throttled') return gatewayResponse('THROTTLED');
      apiKeyIdentity = { apiKey: apiKey as string, apiKeyId: verdict.keyId };
    }
    // Then the stage's method throttling: API Gateway applies the usage plan's per-client and per-method
    // limits first, the stage's per-method limits after them ("How throttling limit settings are applied",
    // https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html). A
    // request a key's own limit refuses takes nothing from the stage's buckets, which all callers share.
    if (!throttle(method)) return gatewayResponse('THROTTLED');

    const functionName = method.integration.functionName;
    if (!functionName) return gatewayResponse('API_CONFIGURATION_ERROR');
    const query = queryParameters(url);
    const event: APIGatewayProxyEvent = {
      resource: method.path,
      path,
      httpMethod,
      headers: headers.single,
      multiValueHeaders: headers.multi,
      queryStringParameters: query?.single ?? null,
      multiValueQueryStringParameters: query?.multi ?? null,
      pathParameters: Object.keys(pathParameters).length ? pathParameters : null,
      stageVariables: null,
      body: body.length ? body.toString('utf8') : null,
      isBase64Encoded: false,
      requestContext: {
        ...request.context,
        // A method without an authorizer has no `authorizer` at all (not null), as captured.
        ...(authorizerContext ? { authorizer: authorizerContext } : {}),
        identity: { ...request.context.identity, ...apiKeyIdentity },
      } as unknown as APIGatewayProxyEvent['requestContext'],
    };
    const result = await lambda.invoke(functionName, event, {
      requestId,
      deadline: Date.now() + integrationTimeoutMs,
    });
    return integrationReply(result, req);
  }

  async function authorize(
    authorizer: ApiAuthorizerSpec,
    request: GatewayRequest,
  ): Promise<{ context: Record<string, unknown>; usageIdentifierKey?: string } | { reply: Reply }> {
    if (authorizer.type !== 'REQUEST')
      throw new Error(`authorizer type ${authorizer.type} is not supported locally`);
    // Every identity source must be present and non-empty, or API Gateway answers 401 without calling the
    // authorizer. Header names match whatever their case, as HTTP says.
    const identity: string[] = [];
    for (const source of authorizer.identitySources) {
      const value = identitySourceValue(source, { headers: request.headers.single, url: request.url });
      if (!value) return { reply: gatewayResponse('UNAUTHORIZED') };
      identity.push(value);
    }
    const methodArn = `${arnPrefix}/${request.httpMethod}${request.path}`;
    const cacheKey = `${authorizer.logicalId}\n${identity.join('\n')}`;
    let policy = authorizer.resultTtlSeconds > 0 ? policyCache.get(cacheKey) : undefined;
    // The authorizer's latency, which API Gateway reports to the function; 0 for a cached result (what AWS
    // reports then, no capture shows).
    let integrationLatency = 0;
    if (!policy || policy.expiresAt <= Date.now()) {
      // A REQUEST authorizer's event (captured: test/fixtures/aws/rest-request-authorizer.json): the request
      // as the proxy event has it, except that absent query, path parameters and stage variables are {}.
      const query = queryParameters(request.url);
      const event: APIGatewayRequestAuthorizerEvent = {
        type: 'REQUEST',
        methodArn,
        resource: request.method.path,
        path: request.path,
        httpMethod: request.httpMethod,
        headers: request.headers.single,
        multiValueHeaders: request.headers.multi,
        queryStringParameters: query?.single ?? {},
        multiValueQueryStringParameters: query?.multi ?? {},
        pathParameters: request.pathParameters,
        stageVariables: {},
        requestContext: request.context as unknown as APIGatewayRequestAuthorizerEvent['requestContext'],
      };
      const started = Date.now();
      const result = await lambda.invoke(authorizer.functionName, event, { requestId: request.requestId });
      integrationLatency = Date.now() - started;
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
    if (!policyAllows(policy, methodArn)) return { reply: gatewayResponse('ACCESS_DENIED') };
    return {
      context: { ...policy.context, principalId: policy.principalId, integrationLatency },
      usageIdentifierKey: policy.usageIdentifierKey,
    };
  }

  /**
   * What API Gateway says of a request in both the proxy and the authorizer event, field for field as the
   * captures of real events have it (test/fixtures/aws/): ids and times of its own, the caller's address and
   * agent, and the identity fields of the authorization types this API does not use, null.
   */
  function requestContext(
    req: IncomingMessage,
    path: string,
    httpMethod: string,
    method: ApiMethodSpec,
    requestId: string,
  ) {
    const receivedAt = Date.now();
    const domainName = req.headers.host ?? 'localhost';
    return {
      resourceId: method.logicalId,
      resourcePath: method.path,
      httpMethod,
      extendedRequestId: `${randomBytes(11).toString('base64').slice(0, 15)}=`,
      requestTime: commonLogTime(receivedAt),
      path: `/${stage.stageName}${path}`,
      accountId: options.accountId,
      protocol: `HTTP/${req.httpVersion}`,
      stage: stage.stageName,
      domainPrefix: domainName.split('.')[0] as string,
      requestTimeEpoch: receivedAt,
      requestId,
      identity: {
        cognitoIdentityPoolId: null,
        accountId: null,
        cognitoIdentityId: null,
        caller: null,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        principalOrgId: null,
        accessKey: null,
        cognitoAuthenticationType: null,
        cognitoAuthenticationProvider: null,
        userArn: null,
        userAgent: req.headers['user-agent'] ?? null,
        user: null,
      },
      domainName,
      deploymentId,
      apiId: api.id,
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

/**
 * Headers API Gateway does not pass to Lambda: the connection's own (hop-by-hop, RFC 9110 §7.6.1), which no
 * capture of a real event shows although the clients sent them (HTTPie's `Connection: keep-alive`).
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * The request's headers as an event carries them, names as the client wrote them and every value of each
 * (the single-value map keeps the last). A proxy event has no Content-Length either, though the authorizer's
 * has it: so the captures show (test/fixtures/aws/: the same client's POSTs, with and without a body).
 */
function eventHeaders(req: IncomingMessage, { contentLength }: { contentLength: boolean }) {
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || (lower === 'content-length' && !contentLength)) continue;
    const value = req.rawHeaders[i + 1] as string;
    single[name] = value;
    multi[name] = [...(multi[name] ?? []), value];
  }
  return { single, multi };
}

/**
 * The query as API Gateway passes it: decoded as a form (`+` a space, `%2B` a plus), the last value of a
 * repeated name in the single-value map and all of them in order in the other; undefined without a query.
 */
function queryParameters(url: URL) {
  if (url.searchParams.size === 0) return undefined;
  const multi: Record<string, string[]> = {};
  for (const [key, value] of url.searchParams) multi[key] = [...(multi[key] ?? []), value];
  return { single: Object.fromEntries(url.searchParams), multi };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `17/Jun/2024:15:02:03 +0000`: a time as `requestContext.requestTime` writes it (the common log format). */
function commonLogTime(epochMillis: number): string {
  const time = new Date(epochMillis);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(time.getUTCDate())}/${MONTHS[time.getUTCMonth()]}/${time.getUTCFullYear()}:${two(time.getUTCHours())}:${two(time.getUTCMinutes())}:${two(time.getUTCSeconds())} +0000`;
}
