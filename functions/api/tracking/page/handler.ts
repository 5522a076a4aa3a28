import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { trackedStop } from '../../../domain/tracked-stop';
import { errorResponse, successResponse } from '../../../shared/envelope';
import { ERROR_CODES } from '../../../shared/error-codes';
import { ApiError } from '../../../shared/errors';
import { appendLogKeys, logger, observed } from '../../../shared/observability';
import { httpStatusOf } from '../../define';
import { hostAnswer, prefersHtml } from '../answers';
import {
  TRACKING_PAGE_CONTENT_SECURITY_POLICY,
  trackedStopView,
  trackingErrorPage,
  trackingPage,
} from '../views';
import { getTrackingPage as endpoint } from './endpoint';

const answer = (html: boolean, status: number, page: () => string, json: () => APIGatewayProxyResult) =>
  hostAnswer(html, TRACKING_PAGE_CONTENT_SECURITY_POLICY, status, page, json);

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
    return answer(
      html,
      200,
      () => trackingPage(stop),
      () => successResponse(200, trackedStopView(stop)),
    );
  } catch (error) {
    if (error instanceof ApiError) {
      const status = httpStatusOf(endpoint, error);
      logger.debug('request refused', { status_code: status, code: error.code });
      return answer(
        html,
        status,
        () => trackingErrorPage(status),
        () => errorResponse(status, error.code, error.message),
      );
    }
    logger.error('unhandled error', { error });
    const { code, httpStatus } = ERROR_CODES.INTERNAL;
    return answer(
      html,
      httpStatus,
      () => trackingErrorPage(httpStatus),
      () => errorResponse(httpStatus, code, `internal error (request id ${requestId})`),
    );
  }
}

export const handler = Object.assign(observed(serve), { endpoint });
