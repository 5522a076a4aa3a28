import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authenticateApiKey } from '../../../domain/accounts';
import { accountCallerContext } from '../../../shared/auth-context';
import { bearerSecret } from '../../../shared/bearer';
import { appendLogKeys, logger, observed } from '../../../shared/observability';

/**
 * REQUEST authorizer for the public API. API Gateway caches the result by the Authorization header and
 * reuses it for every endpoint, so the policy allows the whole API; DC ownership is checked per request
 * from the DC list in the context. Throwing 'Unauthorized' is how API Gateway is told to answer 401.
 *
 * The result names the account's usage key (usageIdentifierKey; the API's key source is AUTHORIZER), which
 * API Gateway looks up in the accounts' usage plan: every key of an account draws on one throttle. An
 * account without a registered key gets 403 (1009) from API Gateway. The key's value is never logged nor put
 * in the context handlers see.
 */
async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  // The request id and path, never the headers: the Authorization header is the key itself.
  appendLogKeys({ request_id: event.requestContext?.requestId, path: event.path });
  const apiKey = bearerSecret(event.headers);
  const found = apiKey ? await lookUp(apiKey) : undefined;
  if (!found) {
    logger.info('API key refused', {
      reason: apiKey ? 'unknown key' : 'missing or malformed Authorization header',
    });
    throw new Error('Unauthorized');
  }
  const { caller, usageKey } = found;
  appendLogKeys({ account_id: caller.accountId });
  if (usageKey === undefined)
    logger.warn(
      'account has no usage key: API Gateway refuses its requests (npm run --silent admin -- register-usage-key)',
    );
  else logger.debug('API key accepted');
  return {
    principalId: caller.accountId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeApiArn(event.methodArn) }],
    },
    context: accountCallerContext(caller),
    ...(usageKey === undefined ? {} : { usageIdentifierKey: usageKey }),
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

export const handler = observed(authorize);
