/**
 * API Gateway's control plane through the proxy, for the API keys of usage plans: CreateApiKey, GetApiKeys,
 * GetApiKey, CreateUsagePlanKey and GetUsagePlanKeys, answered by the proxy itself from the local key store
 * (local/api-gateway/api-keys.ts) that the local API Gateway reads, in the REST JSON protocol API Gateway speaks.
 * Authorized as IAM does: `apigateway:<HTTP method>` on `arn:aws:apigateway:<region>::<path>` (the operator
 * may; no function role is granted any apigateway action).
 */
import { randomUUID } from 'node:crypto';
import { ApiGatewayFault, type ApiKeyStore, type StoredApiKey } from '../api-gateway/api-keys';
import { apiGatewayChecks, UnknownOperationError } from '../iam/actions';
import { sendError, validationError } from './errors';
import { authorize, type SignedCall, signedBody } from './principals';

/** Far above any of these calls' bodies. */
const MAX_REQUEST_BYTES = 64 * 1024;

export async function handleApiGateway(call: SignedCall, store: ApiKeyStore): Promise<void> {
  const { req, res } = call;
  const body = await signedBody('apigateway', call, MAX_REQUEST_BYTES);
  if (!body) return;
  const method = req.method ?? 'GET';
  let path: string;
  try {
    path = decodeURIComponent(call.rawPath);
  } catch {
    sendError(res, 'apigateway', validationError('apigateway', 'malformed path'));
    return;
  }
  let operation: string;
  try {
    const found = apiGatewayChecks(method, path, call.scope);
    operation = found.operation;
    if (!authorize('apigateway', call, found.checks)) return;
  } catch (error) {
    if (error instanceof UnknownOperationError) {
      sendError(res, 'apigateway', {
        status: 404,
        type: 'NotFoundException',
        message: `The local AWS endpoint does not serve ${method} ${path}`,
      });
      return;
    }
    throw error;
  }
  let input: Record<string, unknown> = {};
  if (body.length) {
    try {
      input = JSON.parse(body.toString('utf8'));
    } catch {
      sendError(res, 'apigateway', validationError('apigateway', 'Invalid JSON in request body'));
      return;
    }
  }
  const query = (name: string) => {
    const value = call.query[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const segments = path.split('/');
  try {
    switch (operation) {
      case 'CreateApiKey': {
        if (input.stageKeys !== undefined || input.generateDistinctId !== undefined)
          throw new ApiGatewayFault(
            'BadRequestException',
            'stageKeys and generateDistinctId are not served locally',
          );
        const key = store.createApiKey({
          name: optionalText(input, 'name'),
          description: optionalText(input, 'description'),
          value: optionalText(input, 'value'),
          enabled: input.enabled === true,
        });
        return reply(201, apiKeyView(key, true));
      }
      case 'GetApiKeys': {
        const includeValues = query('includeValues') === 'true';
        const items = store.listApiKeys(query('name')).map((key) => apiKeyView(key, includeValues));
        return reply(200, { item: items });
      }
      case 'GetApiKey':
        return reply(
          200,
          apiKeyView(store.getApiKey(segments[2] as string), query('includeValue') === 'true'),
        );
      case 'CreateUsagePlanKey': {
        if (input.keyType !== 'API_KEY')
          throw new ApiGatewayFault('BadRequestException', 'keyType must be API_KEY');
        const keyId = optionalText(input, 'keyId');
        if (!keyId) throw new ApiGatewayFault('BadRequestException', 'keyId is required');
        return reply(201, usagePlanKeyView(store.addUsagePlanKey(segments[2] as string, keyId)));
      }
      case 'GetUsagePlanKeys':
        return reply(200, { item: store.usagePlanKeys(segments[2] as string).map(usagePlanKeyView) });
    }
  } catch (error) {
    if (error instanceof ApiGatewayFault) {
      sendError(res, 'apigateway', { status: error.status, type: error.type, message: error.message });
      return;
    }
    throw error;
  }

  function reply(status: number, data: unknown): void {
    const text = JSON.stringify(data);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'x-amzn-requestid': randomUUID(),
    });
    res.end(text);
  }
}

function optionalText(input: Record<string, unknown>, name: string): string | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ApiGatewayFault('BadRequestException', `${name} must be a string`);
  return value;
}

/** An ApiKey resource as API Gateway returns it (dates in epoch seconds, as its JSON has them). */
function apiKeyView(key: StoredApiKey, includeValue: boolean) {
  return {
    id: key.id,
    ...(includeValue ? { value: key.value } : {}),
    name: key.name,
    description: key.description,
    enabled: key.enabled,
    createdDate: Math.floor(key.createdDate / 1000),
    lastUpdatedDate: Math.floor(key.createdDate / 1000),
    stageKeys: [],
  };
}

function usagePlanKeyView(key: StoredApiKey) {
  return { id: key.id, type: 'API_KEY', name: key.name, value: key.value };
}
