import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { deflate, gzip } from 'node:zlib';
import type { GatewayResponseSpec } from '../cloud/model';

/** What the local API Gateway answers: a status, headers and the body as bytes. */
export interface Reply {
  statusCode: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * The status each gateway response type has when the API does not set one
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html).
 */
export const DEFAULT_STATUS: Record<string, number> = {
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

export function send(res: ServerResponse, reply: Reply): void {
  res.writeHead(reply.statusCode, reply.headers);
  res.end(reply.body);
}

export function withStatus(reply: Reply, statusCode: number): Reply {
  return { ...reply, statusCode };
}

/** A gateway response as API Gateway renders it: the template for JSON, the static header values. */
export function renderGatewayResponse(
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
export function proxyResponse(payload: unknown): Reply | undefined {
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
export async function compress(
  reply: Reply,
  req: IncomingMessage,
  minimumSize: number | undefined,
): Promise<Reply> {
  if (minimumSize === undefined || reply.body.length < minimumSize) return reply;
  const accepted = String(req.headers['accept-encoding'] ?? '');
  const encoding = /\bgzip\b/.test(accepted) ? 'gzip' : /\bdeflate\b/.test(accepted) ? 'deflate' : undefined;
  if (!encoding) return reply;
  const body = encoding === 'gzip' ? await gzipAsync(reply.body) : await deflateAsync(reply.body);
  return { ...reply, headers: { ...reply.headers, 'Content-Encoding': encoding }, body };
}
