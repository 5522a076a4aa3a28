import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authenticateApiKey } from '../../domain/accounts';
import { accountCallerContext } from '../../shared/auth-context';
import { bearerSecret } from '../../shared/bearer';
import { logger } from '../../shared/logger';

/**
 * REQUEST authorizer for the public API. API Gateway caches the result by the Authorization header and
 * reuses it for every endpoint, so the policy allows the whole API; DC ownership is checked per request
 * from the DC list in the context. Throwing 'Unauthorized' is how API Gateway is told to answer 401.
 */
async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const apiKey = bearerSecret(event.headers);
  const caller = apiKey ? await authenticateApiKey(apiKey) : undefined;
  if (!caller) {
    logger.info('API key refused', {
      reason: apiKey ? 'unknown key' : 'missing or malformed Authorization header',
    });
    throw new Error('Unauthorized');
  }
  return {
    principalId: caller.accountId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeApiArn(event.methodArn) }],
    },
    context: accountCallerContext(caller),
  };
}

/** arn:aws:execute-api:region:account:api-id/stage/METHOD/path -> arn:aws:execute-api:...:api-id/stage/*\/* */
function wholeApiArn(methodArn: string): string {
  const [api, stage] = methodArn.split('/');
  return `${api}/${stage}/*/*`;
}

export const handler = middy(authorize).use(injectLambdaContext(logger, { resetKeys: true }));
