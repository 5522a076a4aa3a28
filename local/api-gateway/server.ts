import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ApiStageSpec, RestApiSpec } from '../cloud/model';
import type { InvokeResult, LambdaRuntime } from '../lambda/runtime';
import { listenOnLoopback } from '../loopback-server';
import { ApiKeyStore } from './api-keys';
import { RequestAuthorizers } from './authorizer';
import { type Admission, gatewayRequest, proxyEvent, type StageIdentity } from './events';
import { compileMethods, matchMethod, methodThrottles, rawRequestPath, usagePlanThrottles } from './methods';
import {
  compress,
  DEFAULT_STATUS,
  proxyResponse,
  type Reply,
  renderGatewayResponse,
  send,
  withStatus,
} from './responses';

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
  /** The local runtime's own routes (`/_local/...`, no API Gateway method): true when it answered the request. */
  localRoutes?: (method: string, path: string, res: ServerResponse, req: IncomingMessage) => boolean;
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
  const throttle = methodThrottles(stage);
  const apiKeys = options.apiKeys ?? new ApiKeyStore();
  apiKeys.declare(api.id, api.usagePlans);
  const meter = usagePlanThrottles(api, stage, apiKeys);
  const integrationTimeoutMs = Math.min(
    options.integrationTimeoutMs ?? API_GATEWAY_LIMITS.integrationTimeoutMs,
    API_GATEWAY_LIMITS.integrationTimeoutMs,
  );
  const authorizers = new RequestAuthorizers(
    api.authorizers,
    lambda,
    `arn:aws:execute-api:${options.region}:${options.accountId}:${api.id}/${stage.stageName}`,
  );
  const stageIdentity: StageIdentity = {
    apiId: api.id,
    stageName: stage.stageName,
    accountId: options.accountId,
    deploymentId: randomBytes(8).toString('hex').slice(0, 6),
  };

  /** What the stage answers a request: in API Gateway's order, match, authorize, meter, throttle, invoke. */
  async function respond(req: IncomingMessage, body: Buffer | undefined, requestId: string): Promise<Reply> {
    if (body === undefined) return gatewayResponse('REQUEST_TOO_LARGE');
    // The path as sent, still percent-encoded, as API Gateway passes it on; the query decoded (`+` a space).
    const path = rawRequestPath(req.url ?? '/');
    const match = matchMethod(methods, req.method ?? 'GET', path);
    if (!match) return gatewayResponse('MISSING_AUTHENTICATION_TOKEN');
    const request = gatewayRequest(req, { ...match, path }, requestId, stageIdentity);
    const { method } = request;

    const admission: Admission = {};
    let usageIdentifierKey: string | undefined;
    if (method.authorizationType === 'CUSTOM') {
      const authorizer = authorizers.find(method.authorizerLogicalId);
      if (!authorizer) return gatewayResponse('API_CONFIGURATION_ERROR');
      const verdict = await authorizers.authorize(authorizer, request);
      if (!verdict.admitted) return gatewayResponse(verdict.refusal);
      admission.authorizer = verdict.context;
      usageIdentifierKey = verdict.usageIdentifierKey;
    } else if (method.authorizationType !== 'NONE') {
      throw new Error(`authorization type ${method.authorizationType} is not supported locally`);
    }

    // A method that requires an API key takes it from the API's key source: the X-API-Key header, or the
    // authorizer's usageIdentifierKey. It must be an enabled key of a usage plan of this stage (403
    // INVALID_API_KEY otherwise), and the plan's throttles hold per key (429 THROTTLED).
    if (method.apiKeyRequired) {
      const apiKey =
        api.apiKeySource === 'AUTHORIZER'
          ? usageIdentifierKey
          : Object.entries(request.headers.single).find(([name]) => name.toLowerCase() === 'x-api-key')?.[1];
      const verdict = meter(apiKey, method);
      if (verdict === 'forbidden') return gatewayResponse('INVALID_API_KEY');
      if (verdict === 'throttled') return gatewayResponse('THROTTLED');
      admission.apiKey = { apiKey: apiKey as string, apiKeyId: verdict.keyId };
    }
    // Then the stage's method throttling: API Gateway applies the usage plan's per-client and per-method
    // limits first, the stage's per-method limits after them ("How throttling limit settings are applied",
    // https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html). A
    // request a key's own limit refuses takes nothing from the stage's buckets, which all callers share.
    if (!throttle(method)) return gatewayResponse('THROTTLED');

    const functionName = method.integration.functionName;
    if (!functionName) return gatewayResponse('API_CONFIGURATION_ERROR');
    const result = await lambda.invoke(functionName, proxyEvent(request, body, admission), {
      requestId,
      deadline: Date.now() + integrationTimeoutMs,
    });
    return integrationReply(result, req);
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
    const path = (req.url ?? '/').split('?')[0] as string;
    // A local route reads its request's body or drains it itself.
    if (path.startsWith('/_local/') && options.localRoutes?.(req.method ?? 'GET', path, res, req)) return;
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
  const { url, close } = await listenOnLoopback(server, options.port);
  return { url, server, close };
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
