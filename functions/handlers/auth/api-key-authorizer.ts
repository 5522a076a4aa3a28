import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authenticateApiKey } from '../../domain/accounts';
import { accountCallerContext } from '../../shared/auth-context';
import { bearerSecret } from '../../shared/bearer';
import { appendLogKeys, logger, observed } from '../../shared/observability';

/**
 * REQUEST authorizer for the public API. API Gateway caches the result by the Authorization header and
 * reuses it for every endpoint, so the policy allows the whole API; DC ownership is checked per request
 * from the DC list in the context. Throwing 'Unauthorized' is how API Gateway is told to answer 401.
 */
async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  // The request id and path, never the headers: the Authorization header is the key itself.
  appendLogKeys({ request_id: event.requestContext?.requestId, path: event.path });
  const apiKey = bearerSecret(event.headers);
  const caller = apiKey ? await lookUp(apiKey) : undefined;
  if (!caller) {
    logger.info('API key refused', {
      reason: apiKey ? 'unknown key' : 'missing or malformed Authorization header',
    });
    throw new Error('Unauthorized');
  }
  appendLogKeys({ account_id: caller.accountId });
  logger.debug('API key accepted');
  return {
    principalId: caller.accountId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeApiArn(event.methodArn) }],
    },
    context: accountCallerContext(caller),
  };
}

/** A failed lookup (not a refused key) makes API Gateway answer 500; the log says why, without the key. */
async function lookUp(apiKey: string) {
  try {
    return await authenticateApiKey(apiKey);
  } catch (error) {
    logger.error('API key lookup failed', { error });
    throw error;
  }
}

/** arn:aws:execute-api:region:account:api-id/stage/METHOD/path -> arn:aws:execute-api:...:api-id/stage/*\/* */
function wholeApiArn(methodArn: string): string {
  const [api, stage] = methodArn.split('/');
  return `${api}/${stage}/*/*`;
}

export const handler = observed(middy(authorize));
