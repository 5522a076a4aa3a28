import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { AUTHORIZERS, checkedByGateway } from '../functions/endpoints/authorizers';
import type { AuthKind, EndpointDefinition } from '../functions/endpoints/define';
import { GATEWAY_RESPONSES, type GatewayResponseType, gatewayResponseBody } from '../lib/gateway-responses';
import { loadHandler } from './handlers';

/** API Gateway refuses payloads above 10 MB before any Lambda runs. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;
const STAGE = 'local';
const ARN_PREFIX = 'arn:aws:execute-api:us-east-1:000000000000:local';

interface Route {
  endpoint: EndpointDefinition;
  pattern: RegExp;
  paramNames: string[];
  /** Literal segments rank above parameters, as in API Gateway. */
  specificity: string;
}

interface CachedAuthorization {
  context: Record<string, unknown>;
  principalId: string;
  expiresAt: number;
}

export interface ApiServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export interface ApiServerOptions {
  endpoints: readonly EndpointDefinition[];
  port?: number;
  /** One line per request on stdout. */
  accessLog?: boolean;
}

/**
 * The local stand-in for API Gateway: matches the endpoint list's paths, runs the same Lambda authorizer
 * (cached by Authorization header), turns each request into a REST proxy event for the same handler,
 * and answers API Gateway's own errors with the same gateway-response bodies as the deployed API.
 */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const routes = compileRoutes(options.endpoints);
  const authorizationCache = new Map<string, CachedAuthorization>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = Date.now();
    const url = new URL(req.url ?? '/', 'http://local');
    const method = req.method ?? 'GET';
    const body = await readBody(req);
    const result = await respond(method, url, req, body);
    res.writeHead(result.statusCode, {
      'Content-Type': 'application/json',
      ...(result.headers as Record<string, string>),
    });
    res.end(result.body);
    if (options.accessLog)
      console.log(`${method} ${url.pathname} ${result.statusCode} ${Date.now() - started}ms`);
  }

  async function respond(
    method: string,
    url: URL,
    req: IncomingMessage,
    body: Buffer | undefined,
  ): Promise<APIGatewayProxyResult> {
    if (body === undefined) return gatewayResponse('REQUEST_TOO_LARGE', 413);
    const match = matchRoute(routes, method, url.pathname);
    if (!match) return gatewayResponse('MISSING_AUTHENTICATION_TOKEN', 404);
    const { endpoint, pathParameters } = match;
    const headers = singleValueHeaders(req);
    const requestId = randomUUID();

    let authorizer: Record<string, unknown> | null = null;
    if (checkedByGateway(endpoint.auth)) {
      const authorization = headers.Authorization ?? headers.authorization;
      if (!authorization) return gatewayResponse('UNAUTHORIZED', 401);
      const outcome = await authorize(endpoint.auth, authorization, headers, method, url.pathname, requestId);
      if (!outcome.allowed) return outcome.response;
      authorizer = outcome.context;
    }

    const event: APIGatewayProxyEvent = {
      resource: endpoint.path,
      path: url.pathname,
      httpMethod: method,
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
        accountId: '000000000000',
        apiId: 'local',
        authorizer,
        httpMethod: method,
        identity: {
          sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        } as APIGatewayProxyEvent['requestContext']['identity'],
        path: `/${STAGE}${url.pathname}`,
        protocol: `HTTP/${req.httpVersion}`,
        requestId,
        requestTimeEpoch: Date.now(),
        resourceId: endpoint.operationId,
        resourcePath: endpoint.path,
        stage: STAGE,
      },
    };
    try {
      const handler = await loadHandler(endpoint.handler);
      return (await handler(event, lambdaContext(endpoint.handler, requestId))) as APIGatewayProxyResult;
    } catch (error) {
      // A handler that throws past its own error handling: API Gateway answers 502; we answer the 5XX body.
      console.error(`handler ${endpoint.handler} threw`, error);
      return gatewayResponse('DEFAULT_5XX', 502);
    }
  }

  async function authorize(
    kind: AuthKind,
    authorization: string,
    headers: Record<string, string>,
    method: string,
    path: string,
    requestId: string,
  ): Promise<
    { allowed: true; context: Record<string, unknown> } | { allowed: false; response: APIGatewayProxyResult }
  > {
    const authorizerDefinition = AUTHORIZERS[kind];
    if (!authorizerDefinition) return { allowed: false, response: gatewayResponse('DEFAULT_5XX', 500) };
    const cacheKey = `${kind}\n${authorization}`;
    const cached = authorizationCache.get(cacheKey);
    if (cached && cached.expiresAt > Date.now()) {
      return { allowed: true, context: { ...cached.context, principalId: cached.principalId } };
    }

    const event: APIGatewayRequestAuthorizerEvent = {
      type: 'REQUEST',
      methodArn: `${ARN_PREFIX}/${STAGE}/${method}${path}`,
      resource: path,
      path,
      httpMethod: method,
      headers,
      multiValueHeaders: null,
      pathParameters: null,
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      stageVariables: null,
      requestContext: { requestId, stage: STAGE } as APIGatewayRequestAuthorizerEvent['requestContext'],
    };
    let result: APIGatewayAuthorizerResult;
    try {
      const authorizer = await loadHandler(authorizerDefinition.handler);
      result = (await authorizer(
        event,
        lambdaContext(authorizerDefinition.handler, requestId),
      )) as APIGatewayAuthorizerResult;
    } catch (error) {
      if (error instanceof Error && error.message === 'Unauthorized') {
        return { allowed: false, response: gatewayResponse('UNAUTHORIZED', 401) };
      }
      console.error('authorizer failed', error);
      return { allowed: false, response: gatewayResponse('DEFAULT_5XX', 500) };
    }
    const allowed = result.policyDocument.Statement.some((statement) => {
      const resources = 'Resource' in statement ? [statement.Resource as string | string[]].flat() : [];
      return (
        statement.Effect === 'Allow' && resources.some((resource) => arnMatches(resource, event.methodArn))
      );
    });
    if (!allowed) return { allowed: false, response: gatewayResponse('ACCESS_DENIED', 401) };
    const context = (result.context ?? {}) as Record<string, unknown>;
    authorizationCache.set(cacheKey, {
      context,
      principalId: result.principalId,
      expiresAt: Date.now() + authorizerDefinition.cacheTtlSeconds * 1000,
    });
    return { allowed: true, context: { ...context, principalId: result.principalId } };
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      console.error('local API server failed', error);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(gatewayResponseBody('DEFAULT_5XX'));
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

function gatewayResponse(type: GatewayResponseType, fallbackStatus: number): APIGatewayProxyResult {
  return {
    statusCode: GATEWAY_RESPONSES[type].statusCode ?? fallbackStatus,
    headers: {},
    body: gatewayResponseBody(type),
  };
}

/** Resolves with the body, or undefined once it passes API Gateway's limit. */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > GATEWAY_MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function compileRoutes(endpoints: readonly EndpointDefinition[]): Route[] {
  return endpoints
    .map((endpoint) => {
      const paramNames: string[] = [];
      const segments = endpoint.path.split('/').slice(1);
      const pattern = segments
        .map((segment) => {
          const param = segment.match(/^\{(\w+)\}$/);
          if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          paramNames.push(param[1]);
          return '([^/]+)';
        })
        .join('/');
      const specificity = segments.map((segment) => (segment.startsWith('{') ? '1' : '0')).join('');
      return { endpoint, pattern: new RegExp(`^/${pattern}/?$`), paramNames, specificity };
    })
    .sort((a, b) => a.specificity.localeCompare(b.specificity));
}

function matchRoute(routes: Route[], method: string, path: string) {
  for (const route of routes) {
    if (route.endpoint.method !== method) continue;
    const match = route.pattern.exec(path);
    if (!match) continue;
    try {
      const pathParameters = Object.fromEntries(
        route.paramNames.map((name, index) => [name, decodeURIComponent(match[index + 1] ?? '')]),
      );
      return { endpoint: route.endpoint, pathParameters };
    } catch {
      return undefined; // malformed percent-encoding: no route can match it
    }
  }
  return undefined;
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

/** Matches an IAM-style resource with `*` wildcards against a method ARN. */
function arnMatches(resource: string, methodArn: string): boolean {
  const pattern = resource
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`).test(methodArn);
}

function lambdaContext(handler: string, requestId: string): Context {
  const deadline = Date.now() + 29_000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: `local-${handler.replaceAll('/', '-')}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:local-${handler.replaceAll('/', '-')}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/local/${handler}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
