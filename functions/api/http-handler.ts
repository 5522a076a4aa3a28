import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { authenticateDriverToken } from '../domain/driver-auth';
import { IDEMPOTENCY_HEADER_NAME } from '../models/idempotency';
import {
  type AccountCaller,
  type Caller,
  type DriverCaller,
  readAccountCaller,
} from '../shared/auth-context';
import { bearerSecret } from '../shared/bearer';
import { errorResponse, successResponse } from '../shared/envelope';
import { ERROR_CODES } from '../shared/error-codes';
import { ApiError, ForbiddenDcError, InvalidDriverTokenError } from '../shared/errors';
import { MAX_BODY_BYTES } from '../shared/limits';
import { appendLogKeys, logger, observed } from '../shared/observability';
import {
  decodePathParameters,
  headerValues,
  parseJsonText,
  parsePart,
  type RequestPart,
} from '../shared/request-parsing';
import * as z from '../shared/zod';
import { type EndpointDefinition, httpStatusOf, isDcScoped, takesIdempotencyKey } from './define';

type Infer<T> = T extends z.ZodMiniType ? z.output<T> : undefined;

export interface ApiRequest<E extends EndpointDefinition> {
  params: Infer<E['request']['params']>;
  query: Infer<E['request']['query']>;
  body: Infer<E['request']['body']>;
  caller: E['auth'] extends 'apiKey'
    ? AccountCaller
    : E['auth'] extends 'driverToken'
      ? DriverCaller
      : Caller;
  requestId: string;
  /** The client prefers `application/geo+json` (its Accept header); false unless the endpoint has `geoJson`. */
  prefersGeoJson: boolean;
}

type SuccessData<E extends EndpointDefinition> = E['responses'] extends { 200: { data: infer S } }
  ? z.input<S & z.ZodMiniType>
  : unknown;

/**
 * The body of an endpoint that declares none: nothing, or `{}` (for clients that always send one). Any other body is
 * refused like a body that fails its schema (1004 over the size limit, 1005 malformed, else 1006), not ignored:
 * a client that sends one expects it to count.
 */
const NO_BODY = z.optional(z.strictObject({}, { error: 'this endpoint takes no body; send none, or {}' }));

/** A success answered with a status other than 200 (202 for work still pending). */
export class WithStatus {
  constructor(
    readonly statusCode: 200 | 202,
    readonly data: unknown,
  ) {}
}

/**
 * An RFC 7946 GeoJSON answer, without the envelope, for an endpoint with `geoJson` to a client that prefers
 * `application/geo+json` (`request.prefersGeoJson`).
 */
export class GeoJsonAnswer {
  constructor(readonly body: unknown) {}
}

/**
 * How an endpoint with `geoJson` tells that the client prefers it (functions/api/geo-json.ts), which its
 * handler passes to httpHandler: the other functions do not bundle the Accept negotiation.
 */
export type GeoJsonPreference = (event: APIGatewayProxyEvent) => boolean;

/**
 * Wraps a use case as an API Gateway proxy handler: size limit, JSON parsing, zod validation of path,
 * query and body (messages name the field path; an endpoint without a body schema takes none, NO_BODY),
 * the DC-ownership check, the Idempotency-Key of a write (functions/domain/idempotency.ts: checked once the
 * request has passed all of those), and the envelope for every outcome. Anything that is not an ApiError
 * becomes a generic 500 whose request id is logged.
 */
export function httpHandler<const E extends EndpointDefinition>(
  endpoint: E,
  handle: (request: ApiRequest<E>) => Promise<SuccessData<E> | WithStatus | GeoJsonAnswer>,
  ...geoJson: E extends { geoJson: object } ? [prefersGeoJson: GeoJsonPreference] : []
) {
  const [prefersGeoJson] = geoJson as [GeoJsonPreference?];
  if (endpoint.geoJson && !prefersGeoJson)
    throw new Error(
      `${endpoint.operationId} has geoJson: its handler must pass prefersGeoJson (geo-json.ts)`,
    );
  const dcScoped = isDcScoped(endpoint);
  const keyed = takesIdempotencyKey(endpoint);

  async function run(event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> {
    const requestId = event.requestContext?.requestId ?? context.awsRequestId;
    // Ids only: never the headers or the body, which carry API keys, login tokens and webhook secrets.
    appendLogKeys({ request_id: requestId, operation: endpoint.operationId });
    try {
      const caller = await readCaller(endpoint, event);
      const pathParameters = decodePathParameters(event.pathParameters);
      appendLogKeys({ dc_id: pathParameters.dc_id, ...callerLogKeys(caller) });
      const params = parseOptionalPart('path', endpoint.request.params, pathParameters);
      if (dcScoped && caller.kind === 'apiKey') {
        const dcId = (params as { dc_id: string }).dc_id;
        if (!caller.dcIds.includes(dcId)) throw new ForbiddenDcError(dcId);
      }
      // API Gateway hands the query already decoded (`+` as a space): taken as it comes, never decoded again.
      const rawQuery = event.queryStringParameters ?? {};
      const query = parseOptionalPart('query', endpoint.request.query, rawQuery);
      const json = parseJsonBody(event);
      const body = parsePart('body', endpoint.request.body ?? NO_BODY, json);
      const answer = () =>
        respond(endpoint, requestId, () =>
          handle({
            params,
            query,
            body: endpoint.request.body ? body : undefined,
            caller,
            requestId,
            prefersGeoJson: prefersGeoJson?.(event) ?? false,
          } as ApiRequest<E>),
        );
      // The key machinery is loaded (idempotency-key.ts, on first use) only for a request that sends a key:
      // a cold start of a read, or of a write without one, skips it.
      if (!keyed || headerValues(event, IDEMPOTENCY_HEADER_NAME).length === 0) return await answer();
      const { answerKeyedWrite } = await import('./idempotency-key');
      const deadline = Date.now() + context.getRemainingTimeInMillis();
      const write = { endpoint, event, caller, pathParameters, query: rawQuery, body: json, deadline };
      return await answerKeyedWrite(write, answer);
    } catch (error) {
      return errorAnswer(endpoint, error, requestId);
    }
  }

  return Object.assign(observed(run), { endpoint });
}

/** The use case's answer in the envelope: its data, or the error it was refused with. */
async function respond(
  endpoint: EndpointDefinition,
  requestId: string,
  handle: () => Promise<unknown>,
): Promise<APIGatewayProxyResult> {
  try {
    const result = await handle();
    const response =
      result instanceof GeoJsonAnswer
        ? {
            statusCode: 200,
            headers: { 'Content-Type': 'application/geo+json', Vary: 'Accept' },
            body: JSON.stringify(result.body),
          }
        : result instanceof WithStatus
          ? successResponse(result.statusCode, result.data)
          : successResponse(200, result);
    logger.debug('request handled', { status_code: response.statusCode });
    return response;
  } catch (error) {
    return errorAnswer(endpoint, error, requestId);
  }
}

/** An ApiError's envelope, or for anything else a generic 500 whose request id is logged. */
function errorAnswer(endpoint: EndpointDefinition, error: unknown, requestId: string): APIGatewayProxyResult {
  if (error instanceof ApiError) {
    const status = httpStatusOf(endpoint, error);
    logger.debug('request refused', { status_code: status, code: error.code });
    return errorResponse(status, error.code, error.message, error.headers);
  }
  logger.error('unhandled error', { error });
  const { code, httpStatus } = ERROR_CODES.INTERNAL;
  return errorResponse(httpStatus, code, `internal error (request id ${requestId})`);
}

/** Who called, for the log lines: the account, and for a driver its DC and id (never its token). */
function callerLogKeys(caller: Caller) {
  if (caller.kind === 'apiKey') return { account_id: caller.accountId };
  if (caller.kind === 'driverToken')
    return { account_id: caller.accountId, dc_id: caller.dcId, driver_id: caller.driverId };
  return {};
}

/**
 * API keys are checked by the gateway's authorizer, which passes the caller in the request context. Driver
 * tokens are checked here on every request (no authorizer cache), so a deleted driver is refused at once.
 */
async function readCaller(endpoint: EndpointDefinition, event: APIGatewayProxyEvent): Promise<Caller> {
  if (endpoint.auth === 'apiKey') return readAccountCaller(event.requestContext?.authorizer);
  if (endpoint.auth === 'driverToken') {
    const token = bearerSecret(event.headers);
    const verifiedByWrite = endpoint.driverTokenVerifiedBy === 'write';
    const sourceIp = event.requestContext?.identity?.sourceIp;
    const driver = token ? await authenticateDriverToken(token, { verifiedByWrite, sourceIp }) : undefined;
    if (!driver) throw new InvalidDriverTokenError();
    return driver;
  }
  return { kind: 'none' };
}

function parseJsonBody(event: APIGatewayProxyEvent): unknown {
  const raw = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) {
    throw new ApiError('BODY_TOO_LARGE', `request body is larger than ${MAX_BODY_BYTES} bytes`);
  }
  return parseJsonText(text);
}

function parseOptionalPart(part: RequestPart, schema: z.ZodMiniType | undefined, input: unknown): unknown {
  return schema ? parsePart(part, schema, input) : undefined;
}
