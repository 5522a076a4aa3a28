import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { trackedStop } from '../../../domain/tracked-stop';
import { successResponse } from '../../../shared/envelope';
import { observed } from '../../../shared/observability';
import { answerHostRequest, type HostPages } from '../answers';
import {
  TRACKING_PAGE_CONTENT_SECURITY_POLICY,
  trackedStopView,
  trackingErrorPage,
  trackingPage,
} from '../views';
import { getTrackingPage as endpoint } from './endpoint';

const PAGES: HostPages = {
  contentSecurityPolicy: TRACKING_PAGE_CONTENT_SECURITY_POLICY,
  errorPage: trackingErrorPage,
};

/**
 * The tracking page (no authorizer: the token is the credential), as HTML or JSON by the Accept header. The
 * token is taken as API Gateway passes it, still percent-encoded: a token is base64url, which needs no escape,
 * so anything with one is no token (404).
 */
const serve = (event: APIGatewayProxyEvent, context: Context) =>
  answerHostRequest(event, context, endpoint, PAGES, async () => {
    const stop = await trackedStop(event.pathParameters?.token ?? '', Date.now());
    return { page: () => trackingPage(stop), json: () => successResponse(200, trackedStopView(stop)) };
  });

export const handler = Object.assign(observed(serve), { endpoint });
