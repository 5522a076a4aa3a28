import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { ApiMethodSpec } from '../cloud/model';

/** The stage a request reached, as its events name it. */
export interface StageIdentity {
  apiId: string;
  stageName: string;
  accountId: string;
  /** The stage's deployment, named as API Gateway names one (six lower-case letters and digits). */
  deploymentId: string;
}

/** One request as both the authorizer's and the function's events describe it. */
export interface GatewayRequest {
  req: IncomingMessage;
  url: URL;
  /** As sent, still percent-encoded. */
  path: string;
  httpMethod: string;
  method: ApiMethodSpec;
  pathParameters: Record<string, string>;
  requestId: string;
  /** As the authorizer gets them (the proxy event's lack Content-Length). */
  headers: EventHeaders;
  context: RequestContext;
}

/** What an authorizer let through, and the API key a usage plan metered. */
export interface Admission {
  authorizer?: Record<string, unknown>;
  apiKey?: { apiKey: string; apiKeyId: string };
}

/** The request as the gateway matched it to a method, described for the events. */
export function gatewayRequest(
  req: IncomingMessage,
  matched: { method: ApiMethodSpec; pathParameters: Record<string, string>; path: string },
  requestId: string,
  stage: StageIdentity,
): GatewayRequest {
  const httpMethod = req.method ?? 'GET';
  return {
    req,
    url: new URL(req.url ?? '/', 'http://local'),
    path: matched.path,
    httpMethod,
    method: matched.method,
    pathParameters: matched.pathParameters,
    requestId,
    headers: eventHeaders(req, { contentLength: true }),
    context: requestContext(req, matched.path, httpMethod, matched.method, requestId, stage),
  };
}

/** The Lambda proxy integration's event (captured: test/fixtures/aws/). */
export function proxyEvent(
  request: GatewayRequest,
  body: Buffer,
  admission: Admission,
): APIGatewayProxyEvent {
  const headers = eventHeaders(request.req, { contentLength: false });
  const query = queryParameters(request.url);
  return {
    resource: request.method.path,
    path: request.path,
    httpMethod: request.httpMethod,
    headers: headers.single,
    multiValueHeaders: headers.multi,
    queryStringParameters: query?.single ?? null,
    multiValueQueryStringParameters: query?.multi ?? null,
    pathParameters: Object.keys(request.pathParameters).length ? request.pathParameters : null,
    stageVariables: null,
    body: body.length ? body.toString('utf8') : null,
    isBase64Encoded: false,
    requestContext: {
      ...request.context,
      // A method without an authorizer has no `authorizer` at all (not null), as captured.
      ...(admission.authorizer ? { authorizer: admission.authorizer } : {}),
      identity: { ...request.context.identity, ...admission.apiKey },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

/**
 * A REQUEST authorizer's event (captured: test/fixtures/aws/rest-request-authorizer.json): the request as the
 * proxy event has it, except that absent query, path parameters and stage variables are {}.
 */
export function authorizerEvent(
  request: GatewayRequest,
  methodArn: string,
): APIGatewayRequestAuthorizerEvent {
  const query = queryParameters(request.url);
  return {
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
}

type RequestContext = ReturnType<typeof requestContext>;

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
  stage: StageIdentity,
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
    accountId: stage.accountId,
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
    deploymentId: stage.deploymentId,
    apiId: stage.apiId,
  };
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

/** A request's headers as an event carries them. */
export interface EventHeaders {
  /** The last value of each name. */
  single: Record<string, string>;
  multi: Record<string, string[]>;
}

/**
 * The request's headers as an event carries them, names as the client wrote them and every value of each
 * (the single-value map keeps the last). A proxy event has no Content-Length either, though the authorizer's
 * has it: so the captures show (test/fixtures/aws/: the same client's POSTs, with and without a body).
 */
function eventHeaders(req: IncomingMessage, { contentLength }: { contentLength: boolean }): EventHeaders {
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
