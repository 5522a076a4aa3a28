import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import Negotiator from 'negotiator';
import { trackedStop } from '../../../domain/tracked-stop';
import { errorResponse, successResponse } from '../../../shared/envelope';
import { ERROR_CODES } from '../../../shared/error-codes';
import { ApiError } from '../../../shared/errors';
import { appendLogKeys, logger, observed } from '../../../shared/observability';
import { httpStatusOf } from '../../define';
import {
  TRACKING_PAGE_CONTENT_SECURITY_POLICY,
  trackedStopView,
  trackingErrorPage,
  trackingPage,
} from '../views';
import { getTrackingPage as endpoint } from './endpoint';

/** JSON first: a client that says nothing (curl's `*\/*`) gets JSON; a browser asks for `text/html`. */
const MEDIA_TYPES = ['application/json', 'text/html'];

/**
 * Every answer: the page shows a customer's address, so nothing keeps a copy (no-store); its token must not
 * leave with a Referer; search engines leave it alone.
 */
const COMMON_HEADERS = {
  'Cache-Control': 'no-store',
  Vary: 'Accept',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Robots-Tag': 'noindex',
};

function prefersHtml(event: APIGatewayProxyEvent): boolean {
  const accept = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'accept')?.[1];
  return new Negotiator({ headers: { accept: accept ?? undefined } }).mediaType(MEDIA_TYPES) === 'text/html';
}

function htmlResponse(statusCode: number, body: string): APIGatewayProxyResult {
  return {
    statusCode,
    headers: {
      ...COMMON_HEADERS,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': TRACKING_PAGE_CONTENT_SECURITY_POLICY,
    },
    body,
  };
}

const withCommonHeaders = (response: APIGatewayProxyResult): APIGatewayProxyResult => ({
  ...response,
  headers: { ...response.headers, ...COMMON_HEADERS },
});

/**
 * The tracking page (no authorizer: the token is the credential), as HTML or JSON by the Accept header. The
 * token is taken as API Gateway passes it, still percent-encoded: a token is base64url, which needs no escape,
 * so anything with one is no token (404).
 */
async function serve(event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> {
  const requestId = event.requestContext?.requestId ?? context.awsRequestId;
  // Ids only: the token is a secret, and not logged.
  appendLogKeys({ request_id: requestId, operation: endpoint.operationId });
  const html = prefersHtml(event);
  try {
    const stop = await trackedStop(event.pathParameters?.token ?? '', Date.now());
    return html
      ? htmlResponse(200, trackingPage(stop))
      : withCommonHeaders(successResponse(200, trackedStopView(stop)));
  } catch (error) {
    if (error instanceof ApiError) {
      const status = httpStatusOf(endpoint, error);
      logger.debug('request refused', { status_code: status, code: error.code });
      return html
        ? htmlResponse(status, trackingErrorPage(status))
        : withCommonHeaders(errorResponse(status, error.code, error.message));
    }
    logger.error('unhandled error', { error });
    const { code, httpStatus } = ERROR_CODES.INTERNAL;
    return html
      ? htmlResponse(httpStatus, trackingErrorPage(httpStatus))
      : withCommonHeaders(errorResponse(httpStatus, code, `internal error (request id ${requestId})`));
  }
}

export const handler = Object.assign(observed(serve), { endpoint });
