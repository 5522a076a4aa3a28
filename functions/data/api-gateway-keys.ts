/**
 * The few API Gateway control-plane calls the operator makes for accounts' usage keys (CreateApiKey,
 * GetApiKeys, CreateUsagePlanKey). No Lambda makes these calls (no function role may): only the operator's
 * credentials, from the SDK's default chain. Run by the admin CLI, `npm start`'s seeding and the tests;
 * never bundled into a function. Locally AWS_ENDPOINT_URL_API_GATEWAY points the client at the local AWS
 * endpoint, which serves these calls.
 */
import {
  APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  GetApiKeysCommand,
} from '@aws-sdk/client-api-gateway';
import { awsClientOptions, perConfig } from '../shared/config';

export interface GatewayApiKey {
  id: string;
  name?: string;
  value?: string;
  enabled: boolean;
}

const apiGateway = /* @__PURE__ */ perConfig(() => new APIGatewayClient(awsClientOptions('API_GATEWAY')));

/** Creates an API key with the given value, enabled. */
export async function createApiKey(input: {
  name: string;
  value: string;
  description: string;
}): Promise<GatewayApiKey> {
  const key = await apiGateway().send(new CreateApiKeyCommand({ ...input, enabled: true }));
  return asGatewayKey(key);
}

/** The API keys whose name starts with `name`, with their values (one page of up to 500). */
export async function findApiKeys(name: string): Promise<GatewayApiKey[]> {
  const page = await apiGateway().send(
    new GetApiKeysCommand({ nameQuery: name, includeValues: true, limit: 500 }),
  );
  return (page.items ?? []).map(asGatewayKey);
}

/** Adds an API key to a usage plan; false when it was in the plan already. */
export async function addKeyToUsagePlan(usagePlanId: string, keyId: string): Promise<boolean> {
  try {
    await apiGateway().send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId, keyType: 'API_KEY' }));
    return true;
  } catch (error) {
    if (error instanceof ConflictException) return false;
    throw error;
  }
}

function asGatewayKey(key: { id?: string; name?: string; value?: string; enabled?: boolean }): GatewayApiKey {
  if (!key.id) throw new Error('API Gateway answered an API key without an id');
  return { id: key.id, name: key.name, value: key.value, enabled: key.enabled ?? false };
}
