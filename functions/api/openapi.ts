import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
// Pure signing functions (node:crypto only): the examples carry the headers the delivery worker would send.
import { deliveryHeaders } from '../domain/webhook-http';
import {
  EVENT_DOCS,
  EVENT_TYPES,
  type EventType,
  exampleEvent,
  WEBHOOK_BODY_SCHEMAS,
  webhookBody,
  webhookBodyOf,
} from '../models/event-catalog';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from '../models/idempotency';
import { type ReservedId, reservedIdsOf } from '../models/path-ids';
import { ERROR_CODES } from '../shared/error-codes';
import { type EndpointDefinition, isDcScoped, takesIdempotencyKey } from './define';

const ErrorEnvelope = z
  .object({ status: z.literal('error'), data: z.object({ code: z.number().int(), message: z.string() }) })
  .meta({ id: 'Error' });

/** An HTML page's media type (EndpointDefinition.htmlPage). */
const HTML_PAGE = { 'text/html': { schema: z.string() } };

const codeMeaning = new Map<number, { httpStatus: number; meaning: string }>(
  Object.values(ERROR_CODES).map((entry) => [entry.code, entry]),
);

/** Error responses an endpoint can give, by HTTP status, with the codes each one carries. */
function errorResponses(endpoint: EndpointDefinition): Map<number, number[]> {
  const codes: number[] = [1000, ...endpoint.errorCodes];
  const { params, query } = endpoint.request;
  if (params || query) codes.push(1006);
  // httpHandler checks the body of every endpoint it serves, one without a body schema refusing any but `{}`.
  if (endpoint.envelope !== false) codes.push(1004, 1005, 1006);
  if (endpoint.auth !== 'none') codes.push(1001);
  // The stage's throttle holds for every method (429); the account's usage plan adds its own throttle, and
  // refuses an account without a registered usage key (403).
  codes.push(1008);
  if (endpoint.auth === 'apiKey') codes.push(1009);
  // A write's Idempotency-Key: reused for another request (422), or its first request still in flight (409).
  if (takesIdempotencyKey(endpoint)) codes.push(1010, 1011);
  if (isDcScoped(endpoint)) codes.push(1002);
  const byStatus = new Map<number, number[]>();
  for (const code of [...new Set(codes)].sort()) {
    const status = endpoint.errorStatuses?.[code] ?? codeMeaning.get(code)?.httpStatus ?? 400;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

/** A response header as OpenAPI describes one (a type, not an interface: OpenAPI objects take `x-` keys). */
type ResponseHeader = {
  description: string;
  required: boolean;
  schema: { type: 'integer' | 'string'; minimum?: number; const?: string };
};

/** Every 429 says when to retry: API Gateway's throttling answers and the handlers' own alike. */
const RETRY_AFTER_HEADER: ResponseHeader = {
  description:
    'Seconds to wait before retrying (RFC 9110): for the throttles, the time the slowest token bucket refills a request in; for the driver app’s sign-in limit, the time until the failures stop counting; for a request whose Idempotency-Key is in flight (409), 1',
  required: true,
  schema: { type: 'integer', minimum: 1 },
};

/** The request header of every write (functions/api/idempotency-key.ts). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header' as const,
  required: false,
  description:
    'Optional: a key of the client’s own, unique per request (a UUID), as a quoted Structured Field string (IETF httpapi draft "The Idempotency-Key HTTP Header Field"; 1..255 printable ASCII characters). Sent again with the same request (method, path, query and body) within 24 hours, the first answer comes back as it was, status and body, with `Idempotent-Replayed: true`; with another request 422 (1010); while the first is still processed 409 (1011). Keys are the account’s (on the driver app the driver’s). Answers under 500 are kept, refusals included; a 5xx is not, so the request may be sent again. A request refused before it is processed (credentials, DC, malformed input or key) claims no key',
  schema: { type: 'string' as const },
  example: '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
};

/** On an answer replayed for an Idempotency-Key. */
const REPLAYED_RESPONSE_HEADER: ResponseHeader = {
  description:
    '`true` when this is the kept first answer to the same request with the same Idempotency-Key, replayed; absent otherwise',
  required: false,
  schema: { type: 'string', const: 'true' },
};

/** The statuses a kept answer can have: the use case's (never a refusal made before it, nor a 5xx). */
const replayable = (status: number) => status < 500 && ![401, 409, 413, 422, 429].includes(status);

/**
 * The path parameters, those of ids a client chooses described with the ids their place refuses: fixed
 * segments of other paths sit there (models/path-ids.ts).
 */
function withReservedIds(params: z.ZodObject, reserved: readonly ReservedId[]): z.ZodObject {
  const described = Object.entries(params.shape).flatMap(([name, schema]) => {
    const segments = reserved
      .filter((entry) => entry.parameter === name)
      .map((entry) => `\`${entry.segment}\``);
    if (segments.length === 0) return [];
    const description = `${schema.description}. Never ${segments.join(' or ')}: fixed segments of other paths stand in its place, so creating one with such an id is refused (1006)`;
    return [[name, schema.meta({ description })] as const];
  });
  return described.length ? params.extend(Object.fromEntries(described)) : params;
}

/** The OpenAPI 3.1 document of the given endpoints, generated from their zod schemas. */
export function buildOpenApiDocument(endpoints: readonly EndpointDefinition[]) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'An account API key: `Authorization: Bearer <api_key>`',
  });
  registry.registerComponent('securitySchemes', 'driverToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'A driver’s login token: `Authorization: Bearer <login_token>`',
  });

  const reservedIds = reservedIdsOf(endpoints.map((endpoint) => endpoint.path));
  for (const endpoint of endpoints) {
    const { params, query, body } = endpoint.request;
    const keyed = takesIdempotencyKey(endpoint);
    const responses: Record<string, ResponseConfig> = {};
    for (const [status, response] of Object.entries(endpoint.responses)) {
      if (!('data' in response)) {
        responses[status] = { description: response.description };
        continue;
      }
      const schema =
        endpoint.envelope === false
          ? response.data
          : z.object({ status: z.literal('success'), data: response.data });
      const contentTypes = response.contentTypes ?? ['application/json'];
      responses[status] = {
        description: endpoint.htmlPage
          ? `${response.description}; or, to a client that prefers text/html, ${endpoint.htmlPage}`
          : response.description,
        ...(keyed ? { headers: { [REPLAYED_HEADER]: REPLAYED_RESPONSE_HEADER } } : {}),
        content: {
          ...Object.fromEntries(contentTypes.map((type) => [type, { schema }])),
          ...(endpoint.htmlPage ? HTML_PAGE : {}),
        },
      };
    }
    const ownCodes = new Set([1000, ...endpoint.errorCodes]);
    for (const [status, codes] of errorResponses(endpoint)) {
      const description = codes
        .map((code) => `${code}: ${codeMeaning.get(code)?.meaning ?? 'see the description'}`)
        .join('; ');
      const headers = {
        ...(status === 429 || status === 409 ? { 'Retry-After': RETRY_AFTER_HEADER } : {}),
        ...(keyed && replayable(status) ? { [REPLAYED_HEADER]: REPLAYED_RESPONSE_HEADER } : {}),
      };
      // The endpoint's own refusals come as a page too; API Gateway's (429, 404 1007) as JSON only.
      const page = endpoint.htmlPage && codes.some((code) => ownCodes.has(code)) ? HTML_PAGE : {};
      responses[String(status)] = {
        description,
        ...(Object.keys(headers).length ? { headers } : {}),
        content: { 'application/json': { schema: ErrorEnvelope }, ...page },
      };
    }
    registry.registerPath({
      method: endpoint.method.toLowerCase() as Lowercase<EndpointDefinition['method']>,
      path: endpoint.path,
      operationId: endpoint.operationId,
      summary: endpoint.summary,
      description: endpoint.description,
      tags: [endpoint.tag],
      security: endpoint.auth === 'none' ? [] : [{ [endpoint.auth]: [] }],
      ...(keyed ? { parameters: [IDEMPOTENCY_KEY_PARAMETER] } : {}),
      request: {
        params: params && withReservedIds(params, reservedIds),
        query,
        body: body
          ? {
              // A body whose every field is optional may be left out altogether (rotate-secret's).
              required: !body.safeParse(undefined).success,
              content: { 'application/json': { schema: body } },
            }
          : undefined,
      },
      responses,
    });
  }

  for (const type of EVENT_TYPES) registerWebhookEvent(registry, type);

  const generator = new OpenApiGeneratorV31(registry.definitions);
  const document = generator.generateDocument({
    openapi: '3.1.0',
    // Each deployment has its own URL; the docs page puts the URL it was served from first.
    servers: [
      {
        url: '{base_url}',
        description:
          'the API: a deployment’s stage URL (the ApiUrl output without its last "/"), or npm start’s',
        variables: {
          base_url: { default: 'http://127.0.0.1:3000', description: 'npm start’s URL unless PORT is set' },
        },
      },
    ],
    info: {
      title: 'Delivery Route Service',
      version: '1.0.0',
      description: [
        'Every response is an envelope `{status: "success" | "error", data}`; errors carry `data.code` and `data.message`.',
        `Webhooks: the service POSTs each event to the webhooks subscribed to its type and DC. Each event type's body and headers are documented under Webhooks; the examples are signed with the example secret \`${EXAMPLE_DELIVERY.secret}\`.`,
      ].join('\n\n'),
    },
  });
  // The generator builds the components before the webhooks: build them again, with the schemas only the
  // webhooks' bodies use (they would be referenced but missing).
  return { ...document, components: generator.generateComponents().components };
}

// ---- Webhooks: what the service sends to receivers (OpenAPI 3.1 `webhooks`) ----

/** The headers of every delivery besides `Content-Type` (the media type), as `deliveryHeaders` sets them. */
export const DELIVERY_HEADER_DOCS: Record<string, { description: string; deprecated?: true }> = {
  'webhook-id': {
    description:
      'Standard Webhooks: the event id (`event_id` of the body), the same on every attempt and redelivery: deduplicate by it',
  },
  'webhook-timestamp': {
    description:
      'Standard Webhooks: when this attempt was signed, in Unix seconds; reject ones too far from now',
  },
  'webhook-signature': {
    description:
      'Standard Webhooks: `v1,<base64 HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<raw body>")>`, where the key is the bytes the base64 after `whsec_` of the secret encodes; during a secret rotation one signature per valid secret, space-separated',
  },
  'X-Event-Type': { description: 'the event type (`event` of the body)' },
  'X-Webhook-Id': { description: 'the webhook the delivery is for' },
  'X-Event-Id': {
    description: 'the same as `webhook-id`; kept for this release only: use `webhook-id`',
    deprecated: true,
  },
  'X-Signature': {
    description:
      '`t=<unix ms>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (one `v1=` per valid secret); kept for this release only: verify `webhook-signature`',
    deprecated: true,
  },
};

/** Who the examples are sent to and signed with (an example secret: 32 bytes 0x00..0x1f). */
export const EXAMPLE_DELIVERY = {
  webhookId: 'wh_3f9a0c1d2e4b5a68',
  secret: `whsec_${Buffer.from(Array.from({ length: 32 }, (_, index) => index)).toString('base64')}`,
  /** The first attempt, this long after the event. */
  sentAfterMs: 1_500,
} as const;

/** The headers of the first attempt of a type's example event. */
export function exampleDeliveryHeaders(type: EventType): Record<string, string> {
  const event = exampleEvent(type);
  const { webhookId, secret, sentAfterMs } = EXAMPLE_DELIVERY;
  return deliveryHeaders(webhookId, event, [secret], event.occurred_at + sentAfterMs, webhookBody(event));
}

const operationIdOf = (type: EventType) =>
  `${type.toLowerCase().replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase())}Webhook`;

/** One event type: the POST receivers get, its body (with the example event) and its headers. */
function registerWebhookEvent(registry: OpenAPIRegistry, type: EventType) {
  const doc = EVENT_DOCS[type];
  const headers = exampleDeliveryHeaders(type);
  const body = WEBHOOK_BODY_SCHEMAS[type];
  registry.registerWebhook({
    method: 'post',
    path: type,
    operationId: operationIdOf(type),
    summary: `${type}: ${doc.summary}`,
    description: `${doc.description}\n\nAt least once: deduplicate by \`webhook-id\` (the \`event_id\`). A 2xx within 10 s ends the delivery; anything else is retried (about 1, 5, 15, 30 minutes, then hourly, 12 attempts in all).`,
    tags: ['Webhook events'],
    // The service calls the receiver with no credentials of the receiver's: receivers verify the signature.
    security: [],
    parameters: Object.entries(DELIVERY_HEADER_DOCS).map(([name, header]) => ({
      name,
      in: 'header' as const,
      required: true,
      description: header.description,
      ...(header.deprecated ? { deprecated: true } : {}),
      schema:
        name === 'X-Event-Type' ? { type: 'string' as const, const: type } : { type: 'string' as const },
      example: headers[name],
    })),
    request: {
      body: {
        required: true,
        content: {
          'application/json': { schema: body, example: webhookBodyOf(exampleEvent(type)) },
        },
      },
    },
    responses: {
      '2XX': { description: 'received: the delivery has succeeded' },
      default: { description: 'not received (as is no answer within 10 s): the attempt is retried' },
    },
  });
}
