import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { trackedStop } from '../../../domain/tracked-stop';
import { successResponse } from '../../../shared/envelope';
import { appendLogKeys, observed } from '../../../shared/observability';
import { answerHostRequest, prefersHtml } from '../answers';
import {
  TRACKING_PAGE_CONTENT_SECURITY_POLICY,
  trackedStopView,
  trackingErrorPage,
  trackingPage,
} from '../views';
import { getTrackingPage as endpoint } from './endpoint';

/**
 * The tracking page (no authorizer: the token is the credential), as HTML or JSON by the Accept header. The
 * token is taken as API Gateway passes it, still percent-encoded: a token is base64url, which needs no escape,
 * so anything with one is no token (404).
 */
async function serve(event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> {
  const requestId = event.requestContext?.requestId ?? context.awsRequestId;
  // Ids only: the token is a secret, and not logged.
  appendLogKeys({ request_id: requestId, operation: endpoint.operationId });
  const pages = {
    contentSecurityPolicy: TRACKING_PAGE_CONTENT_SECURITY_POLICY,
    errorPage: trackingErrorPage,
  };
  return answerHostRequest(prefersHtml(event), endpoint, requestId, pages, async () => {
    const stop = await trackedStop(event.pathParameters?.token ?? '', Date.now());
    return { page: () => trackingPage(stop), json: () => successResponse(200, trackedStopView(stop)) };
  });
}

export const handler = Object.assign(observed(serve), { endpoint });
