import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import Negotiator from 'negotiator';
import { errorResponse } from '../../shared/envelope';
import { ERROR_CODES } from '../../shared/error-codes';
import { ApiError } from '../../shared/errors';
import { appendLogKeys, logger } from '../../shared/observability';
import { type EndpointDefinition, httpStatusOf } from '../define';

/**
 * How the tracking host's endpoints answer (the tracking page, unsubscribe links): HTML for a browser, JSON
 * otherwise, with the same headers whichever it is.
 */

/** JSON first: a client that says nothing (curl's `*\/*`, a mail client's POST) gets JSON; a browser asks for `text/html`. */
const MEDIA_TYPES = ['application/json', 'text/html'];

/**
 * Every answer: the pages show a customer's address, so nothing keeps a copy (no-store); the token must not
 * leave with a Referer; search engines leave them alone.
 */
const COMMON_HEADERS = {
  'Cache-Control': 'no-store',
  Vary: 'Accept',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Robots-Tag': 'noindex',
};

/** A request header, whatever its case. */
export const headerOf = (event: APIGatewayProxyEvent, name: string) =>
  Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1] ?? undefined;

const prefersHtml = (event: APIGatewayProxyEvent) =>
  new Negotiator({ headers: { accept: headerOf(event, 'accept') } }).mediaType(MEDIA_TYPES) === 'text/html';

/** The page (under its Content-Security-Policy) when `html`, else the JSON answer; only the one chosen is made. */
function hostAnswer(
  html: boolean,
  contentSecurityPolicy: string,
  status: number,
  page: () => string,
  json: () => APIGatewayProxyResult,
): APIGatewayProxyResult {
  if (!html) {
    const response = json();
    return { ...response, headers: { ...response.headers, ...COMMON_HEADERS } };
  }
  return {
    statusCode: status,
    headers: {
      ...COMMON_HEADERS,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': contentSecurityPolicy,
    },
    body: page(),
  };
}

/** A tracking host endpoint's pages: their Content-Security-Policy and the page an error status gets. */
export interface HostPages {
  contentSecurityPolicy: string;
  errorPage(status: number): string;
}

/**
 * Answers a request of the tracking host as HTML or JSON, by its Accept header: with the page and the JSON
 * `serve` gives (200), or, when it throws, the error page or envelope: an ApiError with the endpoint's status
 * for its code, anything else a 500 that names the request id (logged, with the error).
 */
export async function answerHostRequest(
  event: APIGatewayProxyEvent,
  context: Context,
  endpoint: EndpointDefinition,
  pages: HostPages,
  serve: () => Promise<{ page: () => string; json: () => APIGatewayProxyResult }>,
): Promise<APIGatewayProxyResult> {
  const requestId = event.requestContext?.requestId ?? context.awsRequestId;
  // Ids only: the host's tokens (and unsubscribe address keys) are secrets, and not logged.
  appendLogKeys({ request_id: requestId, operation: endpoint.operationId });
  const html = prefersHtml(event);
  const answer = (status: number, page: () => string, json: () => APIGatewayProxyResult) =>
    hostAnswer(html, pages.contentSecurityPolicy, status, page, json);
  try {
    const { page, json } = await serve();
    return answer(200, page, json);
  } catch (error) {
    if (error instanceof ApiError) {
      const status = httpStatusOf(endpoint, error);
      logger.debug('request refused', { status_code: status, code: error.code });
      return answer(
        status,
        () => pages.errorPage(status),
        () => errorResponse(status, error.code, error.message),
      );
    }
    logger.error('unhandled error', { error });
    const { code, httpStatus } = ERROR_CODES.INTERNAL;
    return answer(
      httpStatus,
      () => pages.errorPage(httpStatus),
      () => errorResponse(httpStatus, code, `internal error (request id ${requestId})`),
    );
  }
}
