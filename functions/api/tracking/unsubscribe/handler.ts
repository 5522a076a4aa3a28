import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { unsubscribe, unsubscribeSubject } from '../../../domain/unsubscribe';
import { successResponse } from '../../../shared/envelope';
import { ValidationError } from '../../../shared/errors';
import { logger, observed } from '../../../shared/observability';
import { answerHostRequest, type HostPages, headerOf } from '../answers';
import {
  UNSUBSCRIBE_PAGE_CONTENT_SECURITY_POLICY,
  unsubscribeErrorPage,
  unsubscribePage,
  unsubscribeView,
} from '../views';
import { getUnsubscribePage as getEndpoint, unsubscribe as postEndpoint } from './endpoint';

/** The form fields RFC 8058 allows (urlencoded or multipart), parsed by the WHATWG Fetch standard's own parser. */
async function formOf(event: APIGatewayProxyEvent): Promise<FormData | undefined> {
  const contentType = headerOf(event, 'content-type') ?? '';
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(contentType)) return undefined;
  const body = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
  try {
    return await new Request('http://localhost/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    }).formData();
  } catch {
    return undefined;
  }
}

/** RFC 8058's body, or a 400 naming the field. */
async function requireOneClick(event: APIGatewayProxyEvent): Promise<void> {
  const form = await formOf(event);
  if (form?.get('List-Unsubscribe') !== 'One-Click')
    throw new ValidationError(
      'body.List-Unsubscribe: must be One-Click, form-encoded (RFC 8058: List-Unsubscribe=One-Click)',
    );
}

const PAGES: HostPages = {
  contentSecurityPolicy: UNSUBSCRIBE_PAGE_CONTENT_SECURITY_POLICY,
  errorPage: unsubscribeErrorPage,
};

/**
 * Both methods of an unsubscribe link (no authorizer: the token is the credential). A GET answers what the
 * link names and changes nothing; a POST with RFC 8058's body unsubscribes. Path parameters are taken as API
 * Gateway passes them: token and address key are base64url, so anything percent-encoded is neither (404).
 */
async function serve(event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> {
  const endpoint = event.httpMethod === 'POST' ? postEndpoint : getEndpoint;
  return answerHostRequest(event, context, endpoint, PAGES, async () => {
    const token = event.pathParameters?.token ?? '';
    const addressKey = event.pathParameters?.address_key ?? '';
    if (endpoint === postEndpoint) await requireOneClick(event);
    const subject =
      endpoint === postEndpoint
        ? await unsubscribe(token, addressKey, Date.now())
        : await unsubscribeSubject(token, addressKey);
    if (endpoint === postEndpoint) logger.info('email address unsubscribed');
    return {
      page: () => unsubscribePage(subject),
      json: () => successResponse(200, unsubscribeView(subject)),
    };
  });
}

/** Bound to both definitions it serves (their requests differ: the POST has a body). */
export const handler = Object.assign(observed(serve), {
  endpoint: getEndpoint,
  endpoints: [getEndpoint, postEndpoint],
});
