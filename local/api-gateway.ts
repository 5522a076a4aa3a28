import { randomUUID } from 'node:crypto';
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
    // The path as sent, still percent-encoded, as API Gateway passes it on; the query decoded (`+` a space).
    const path = rawRequestPath(req.url ?? '/');
    const httpMethod = req.method ?? 'GET';
    const match = matchMethod(methods, httpMethod, path);
    if (!match) return gatewayResponse('MISSING_AUTHENTICATION_TOKEN');
    const { method, pathParameters } = match;

    if (!throttle(method)) return gatewayResponse('THROTTLED');

    const headers = singleValueHeaders(req);
    let authorizerContext: Record<string, unknown> | null = null;
    let usageIdentifierKey: string | undefined;
    if (method.authorizationType === 'CUSTOM') {
      const authorizer = method.authorizerLogicalId ? authorizers.get(method.authorizerLogicalId) : undefined;
      if (!authorizer) return gatewayResponse('API_CONFIGURATION_ERROR');
      const methodArn = `${arnPrefix}/${httpMethod}${path}`;
      const outcome = await authorize(authorizer, {
        req,
        headers,
        url,
        path,
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
      path,
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
        path: `/${stage.stageName}${path}`,
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
      path: string;
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
        path: request.path,
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
