/**
 * The few API Gateway control-plane calls the operator makes for accounts' usage keys (CreateApiKey,
 * GetApiKeys, CreateUsagePlanKey), as SigV4-signed REST calls: the service has no API Gateway SDK client
 * among its dependencies, and no Lambda makes these calls (no function role may: only the operator's
 * credentials, from the SDK's default chain). Run by the admin CLI, `npm start`'s seeding and the tests;
 * never bundled into a function.
 *
 * Endpoint: AWS_ENDPOINT_URL_API_GATEWAY (the SDK's variable for API Gateway; the local AWS endpoint sets
 * it), else https://apigateway.<region>.amazonaws.com.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';

export interface GatewayApiKey {
  id: string;
  name?: string;
  value?: string;
  enabled: boolean;
}

/** An error API Gateway answered, by its type (`ConflictException`, `NotFoundException`, ...). */
export class ApiGatewayError extends Error {
  constructor(
    readonly type: string,
    readonly status: number,
    message: string,
  ) {
    super(`API Gateway ${type} (${status}): ${message}`);
    this.name = type;
  }
}

/** Creates an API key with the given value, enabled. */
export async function createApiKey(input: {
  name: string;
  value: string;
  description: string;
}): Promise<GatewayApiKey> {
  return (await send('POST', '/apikeys', { ...input, enabled: true })) as GatewayApiKey;
}

/** The API keys whose name starts with `name`, with their values (one page of up to 500). */
export async function findApiKeys(name: string): Promise<GatewayApiKey[]> {
  const page = (await send('GET', '/apikeys', undefined, {
    name,
    includeValues: 'true',
    limit: '500',
  })) as { item?: GatewayApiKey[] };
  return page.item ?? [];
}

/** Adds an API key to a usage plan; ConflictException when it is in the plan already. */
export async function addKeyToUsagePlan(usagePlanId: string, keyId: string): Promise<void> {
  await send('POST', `/usageplans/${encodeURIComponent(usagePlanId)}/keys`, {
    keyId,
    keyType: 'API_KEY',
  });
}

let signer: { sign: SignatureV4; endpoint: URL } | undefined;

async function configured() {
  if (!signer) {
    // Any SDK client resolves the default credential chain and Region; it makes no call here.
    const client = new DynamoDBClient({});
    const region = await client.config.region();
    signer = {
      sign: new SignatureV4({
        service: 'apigateway',
        region,
        credentials: client.config.credentials,
        sha256: Sha256,
      }),
      endpoint: new URL(
        process.env.AWS_ENDPOINT_URL_API_GATEWAY ?? `https://apigateway.${region}.amazonaws.com`,
      ),
    };
  }
  return signer;
}

async function send(
  method: 'GET' | 'POST',
  path: string,
  input?: object,
  query: Record<string, string> = {},
): Promise<unknown> {
  const { sign, endpoint } = await configured();
  const body = input === undefined ? undefined : JSON.stringify(input);
  const url = new URL(path, endpoint);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const signed = await sign.sign({
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
    query,
    headers: {
      host: url.host,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body,
  });
  const response = await fetch(url, { method, headers: signed.headers, body });
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!response.ok) {
    const type = (response.headers.get('x-amzn-errortype') ?? 'UnknownError').split(':')[0] as string;
    throw new ApiGatewayError(type, response.status, String(parsed.message ?? parsed.Message ?? text));
  }
  return parsed;
}

type SourceData = string | ArrayBuffer | ArrayBufferView;

const bytes = (data: SourceData): Uint8Array =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

/** SHA-256 (or HMAC-SHA-256 with a secret) in the shape the SDK's signer takes. */
class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}
