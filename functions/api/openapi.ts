import {
  type $ZodObject,
  type $ZodType,
  globalRegistry,
  type JSONSchema,
  registry,
  safeParse,
  toJSONSchema,
} from 'zod/v4/core';
// Pure signing functions (node:crypto only): the examples carry the headers the delivery worker would send.
import { deliveryHeaders } from '../domain/webhook-http';
import {
  EVENT_TYPES,
  type EventType,
  WEBHOOK_BODY_SCHEMAS,
  webhookBody,
  webhookBodyOf,
} from '../models/event-catalog';
import { EVENT_DOCS, exampleEvent } from '../models/event-docs';
import {
  IDEMPOTENCY_KEY_FIELD_PATTERN,
  IDEMPOTENCY_KEY_HEADER,
  REPLAYED_HEADER,
} from '../models/idempotency';
import { type ReservedId, reservedIdsOf } from '../models/path-ids';
import { ERROR_CODES, type ErrorCodeName } from '../shared/error-codes';
import { ERROR_MEANINGS } from '../shared/error-meanings';
// The generator's own schemas in zod's functional API: the document reads any schema through zod core alone.
import * as z from '../shared/zod';
import { type Bundled, bundled, type EndpointDefinition, isDcScoped, takesIdempotencyKey } from './define';
import { operationDescription, TAG_DESCRIPTIONS, WEBHOOK_EVENTS_TAG } from './openapi-descriptions';

/**
 * An endpoint as the document reads it: its schemas as zod core types, so that schemas written with either
 * zod API (`zod` or `zod/mini`) are documented.
 */
export type DocumentedEndpoint = Omit<EndpointDefinition, 'request' | 'responses'> & {
  request: { params?: $ZodObject; query?: $ZodObject; body?: $ZodType; bodyMediaTypes?: readonly string[] };
  responses: Bundled<
    Partial<
      Record<200 | 202, { description: string; data: $ZodType; contentTypes?: readonly string[] }> &
        Record<302 | 304, { description: string }>
    >
  >;
};

const ErrorEnvelope = z
  .object({ status: z.literal('error'), data: z.object({ code: z.int(), message: z.string() }) })
  .register(globalRegistry, { id: 'Error' });

/** An HTML page's media type (EndpointDefinition.htmlPage). */
const HTML_PAGE = { 'text/html': { schema: { type: 'string' } } };
const GEO_JSON = 'application/geo+json';

const COMPONENT_REF_PREFIX = '#/components/schemas/';

/**
 * The zod schemas placed in the document, each converted where it stands once all are known: zod's own
 * JSON Schema conversion of them all at once, over a registry of every schema with an `id`, so that those
 * become components the document refers to (`#/components/schemas/<id>`), as OpenAPI 3.1's dialect
 * (JSON Schema 2020-12) reads them.
 */
class SchemaPlacements {
  private readonly placed: { json: JSONSchema.BaseSchema; schema: $ZodType }[] = [];

  /** The JSON Schema of `schema`, filled in by `convert`. */
  place(schema: $ZodType): JSONSchema.BaseSchema {
    const json: JSONSchema.BaseSchema = {};
    this.placed.push({ json, schema });
    return json;
  }

  /** Fills every placed schema in; returns the components, the schemas with an `id` the document refers to. */
  convert(): Record<string, JSONSchema.BaseSchema> {
    // One object holds every placed schema (under its place's index), so that all are converted in one pass;
    // registered under an id of its own, no schema's, it is neither a component nor referred to.
    const root = z.object(Object.fromEntries(this.placed.map(({ schema }, index) => [index, schema])));
    const ids = registry<{ id: string }>();
    for (const [id, schema] of globalRegistry._idmap) ids.add(schema, { id });
    const rootId = '__document';
    ids.add(root, { id: rootId });
    // `input`: what a client sends and what a body holds before any transform; objects that strip unknown
    // keys stay open (the `output` side would close them with `additionalProperties: false`).
    const { schemas } = toJSONSchema(ids, {
      target: 'draft-2020-12',
      io: 'input',
      uri: (id) => `${COMPONENT_REF_PREFIX}${id}`,
      override: ({ zodSchema, jsonSchema }) => {
        // zod's `int()` is a safe integer, which zod writes as bounds of ±(2^53 - 1); the document states only
        // the bounds the schemas set themselves.
        if (jsonSchema.type !== 'integer') return;
        const stated = new Set((zodSchema._zod.def.checks ?? []).map((check) => check._zod.def.check));
        if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER && !stated.has('greater_than'))
          delete jsonSchema.minimum;
        if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER && !stated.has('less_than'))
          delete jsonSchema.maximum;
      },
    });
    const { [rootId]: converted, __shared: shared, ...components } = schemas;
    // Schemas zod extracts without an id of their own (cycles) would have no place in the document.
    if (shared) throw new Error(`schemas the document cannot name: ${JSON.stringify(shared)}`);
    const properties = converted?.properties ?? {};
    for (const [index, { json }] of this.placed.entries()) Object.assign(json, properties[index]);
    for (const component of Object.values(components)) {
      delete component.$id;
      delete component.$schema;
    }
    return referredComponents(
      this.placed.map(({ json }) => json),
      components,
    );
  }
}

/** The components the schemas refer to, directly or through other components, in the order first met. */
function referredComponents(
  schemas: readonly JSONSchema.BaseSchema[],
  components: Record<string, JSONSchema.BaseSchema>,
): Record<string, JSONSchema.BaseSchema> {
  const referred = new Map<string, JSONSchema.BaseSchema>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      for (const [key, nested] of Object.entries(value)) {
        if (key === '$ref' && typeof nested === 'string' && nested.startsWith(COMPONENT_REF_PREFIX)) {
          const id = nested.slice(COMPONENT_REF_PREFIX.length);
          const component = components[id];
          if (!component) throw new Error(`no component ${id}`);
          if (referred.has(id)) continue;
          referred.set(id, component);
          visit(component);
        } else visit(nested);
      }
    }
  };
  schemas.forEach(visit);
  return Object.fromEntries(referred);
}

const codeMeaning = new Map<number, { httpStatus: number; meaning: string }>(
  (Object.entries(ERROR_CODES) as [ErrorCodeName, (typeof ERROR_CODES)[ErrorCodeName]][]).map(
    ([name, entry]) => [entry.code, { ...entry, meaning: ERROR_MEANINGS[name] }],
  ),
);

/** Error responses an endpoint can give, by HTTP status, with the codes each one carries. */
function errorResponses(endpoint: DocumentedEndpoint): Map<number, number[]> {
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
const IDEMPOTENCY_KEY_PARAMETER: Parameter = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  description:
    'Optional: a key of the client’s own, unique per request (a UUID): 1..255 printable ASCII characters, sent bare (`8e03978e-40d5-43e8-bc93-6894a57f9324`, without spaces, quotes, backslashes, commas or semicolons) or as a quoted Structured Field string (`"8e03978e-40d5-43e8-bc93-6894a57f9324"`, as the IETF httpapi draft "The Idempotency-Key HTTP Header Field" writes it); both forms denote the same key. Sent again with the same request (method, path, query and body) within 24 hours, the first answer comes back as it was, status and body, with `Idempotent-Replayed: true`; with another request 422 (1010); while the first is still processed 409 (1011). Keys are the account’s (on the driver app the driver’s). Answers under 500 are kept, refusals included; a 5xx is not, so the request may be sent again. A request refused before it is processed (credentials, DC, malformed input or key) claims no key',
  schema: { type: 'string', pattern: IDEMPOTENCY_KEY_FIELD_PATTERN },
  example: '8e03978e-40d5-43e8-bc93-6894a57f9324',
};

/** On an answer replayed for an Idempotency-Key. */
const REPLAYED_RESPONSE_HEADER: ResponseHeader = {
  description:
    '`true` when this is the kept first answer to the same request with the same Idempotency-Key, replayed; absent otherwise',
  required: false,
  schema: { type: 'string', const: 'true' },
};

/**
 * The statuses a kept answer can have: the use case's (never a refusal made before it, nor a 5xx). A 409 is
 * a use case's when it carries a code besides 1011 (an Idempotency-Key in flight, refused before it).
 */
const replayable = (status: number, codes: readonly number[]) =>
  status < 500 &&
  (![401, 409, 413, 422, 429].includes(status) || (status === 409 && codes.some((code) => code !== 1011)));

/** The codes whose answers say when to retry: the throttles' (429) and an Idempotency-Key in flight (409). */
const RETRY_AFTER_CODES: ReadonlySet<number> = new Set([1008, 1011]);

/**
 * Retry-After on a status whose codes send it: required when each of them does, optional when some do (a
 * 409 that is also a use case's refusal, which has nothing to wait for).
 */
function retryAfterOf(codes: readonly number[]): Record<string, ResponseHeader> {
  const sending = codes.filter((code) => RETRY_AFTER_CODES.has(code));
  if (sending.length === 0) return {};
  if (sending.length === codes.length) return { 'Retry-After': RETRY_AFTER_HEADER };
  return {
    'Retry-After': {
      ...RETRY_AFTER_HEADER,
      required: false,
      description: `${RETRY_AFTER_HEADER.description}; only with ${sending.join(', ')}`,
    },
  };
}

/** An OpenAPI parameter (a type, not an interface: OpenAPI objects take `x-` keys). */
type Parameter = {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  deprecated?: true;
  schema: JSONSchema.BaseSchema;
  example?: string;
};

/**
 * The parameters of a converted params or query object, one per property. The path parameters of ids a
 * client chooses are described with the ids their place refuses: fixed segments of other paths sit there
 * (models/path-ids.ts).
 */
function parametersOf(
  object: JSONSchema.BaseSchema,
  location: 'path' | 'query',
  reserved: readonly ReservedId[],
): Parameter[] {
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    if (typeof property !== 'object') throw new Error(`parameter ${name}: no schema`);
    const segments = reserved
      .filter((entry) => entry.parameter === name)
      .map((entry) => `\`${entry.segment}\``);
    const description = segments.length
      ? `${property.description}. Never ${segments.join(' or ')}: fixed segments of other paths stand in its place, so creating one with such an id is refused (1006)`
      : property.description;
    return {
      name,
      in: location,
      // A path parameter is always required (OpenAPI); a query parameter unless its schema takes none.
      required: location === 'path' || required.has(name),
      ...(description === undefined ? {} : { description }),
      schema: description === undefined ? property : { ...property, description },
    };
  });
}

/** A request body's content: JSON, or the media types a body that is not JSON may come in (a form's). */
const bodyContent = (schema: object, mediaTypes: readonly string[] = ['application/json']) =>
  Object.fromEntries(mediaTypes.map((type) => [type, { schema }]));

/** The OpenAPI 3.1 document of the given endpoints, generated from their zod schemas. */
export function buildOpenApiDocument(endpoints: readonly DocumentedEndpoint[]) {
  const placements = new SchemaPlacements();
  /** What is filled in once the schemas are converted: the parameters, read from the converted objects. */
  const afterConversion: (() => void)[] = [];
  const paths: Record<string, Record<string, object>> = {};
  const reservedIds = reservedIdsOf(endpoints.map((endpoint) => endpoint.path));
  for (const endpoint of endpoints) {
    const { params, query, body } = endpoint.request;
    const keyed = takesIdempotencyKey(endpoint);
    const responses: Record<string, object> = {};
    for (const [status, response] of Object.entries(bundled(endpoint.responses))) {
      if (!('data' in response)) {
        responses[status] = { description: response.description };
        continue;
      }
      const schema = placements.place(
        endpoint.envelope === false
          ? response.data
          : z.object({ status: z.literal('success'), data: response.data }),
      );
      const contentTypes = response.contentTypes ?? ['application/json'];
      responses[status] = {
        description: endpoint.htmlPage
          ? `${response.description}; or, to a client that prefers text/html, ${endpoint.htmlPage}`
          : endpoint.geoJson && status === '200'
            ? `${response.description}; or, to a client that prefers application/geo+json, ${endpoint.geoJson.description}`
            : response.description,
        ...(keyed ? { headers: { [REPLAYED_HEADER]: REPLAYED_RESPONSE_HEADER } } : {}),
        content: {
          ...Object.fromEntries(contentTypes.map((type) => [type, { schema }])),
          ...(endpoint.htmlPage ? HTML_PAGE : {}),
          ...(endpoint.geoJson && status === '200'
            ? { [GEO_JSON]: { schema: placements.place(bundled(endpoint.geoJson.schema)) } }
            : {}),
        },
      };
    }
    const ownCodes = new Set([1000, ...endpoint.errorCodes]);
    for (const [status, codes] of errorResponses(endpoint)) {
      const description = codes
        .map((code) => `${code}: ${codeMeaning.get(code)?.meaning ?? 'see the description'}`)
        .join('; ');
      const headers = {
        ...retryAfterOf(codes),
        ...(keyed && replayable(status, codes) ? { [REPLAYED_HEADER]: REPLAYED_RESPONSE_HEADER } : {}),
      };
      // The endpoint's own refusals come as a page too; API Gateway's (429, 404 1007) as JSON only.
      const page = endpoint.htmlPage && codes.some((code) => ownCodes.has(code)) ? HTML_PAGE : {};
      responses[String(status)] = {
        description,
        ...(Object.keys(headers).length ? { headers } : {}),
        content: { 'application/json': { schema: placements.place(ErrorEnvelope) }, ...page },
      };
    }
    const parameters: Parameter[] = keyed ? [IDEMPOTENCY_KEY_PARAMETER] : [];
    const pathObject = params && placements.place(params);
    const queryObject = query && placements.place(query);
    const operation: { parameters?: Parameter[] } & Record<string, unknown> = {
      operationId: endpoint.operationId,
      summary: endpoint.summary,
      description: operationDescription(endpoint),
      tags: [endpoint.tag],
      security: endpoint.auth === 'none' ? [] : [{ [endpoint.auth]: [] }],
      parameters,
      ...(body
        ? {
            requestBody: {
              // A body whose every field is optional may be left out altogether (rotate-secret's).
              required: !safeParse(body, undefined).success,
              content: bodyContent(placements.place(body), endpoint.request.bodyMediaTypes),
            },
          }
        : {}),
      responses,
    };
    afterConversion.push(() => {
      if (pathObject) parameters.push(...parametersOf(pathObject, 'path', reservedIds));
      if (queryObject) parameters.push(...parametersOf(queryObject, 'query', []));
      if (parameters.length === 0) delete operation.parameters;
    });
    paths[endpoint.path] = { ...paths[endpoint.path], [endpoint.method.toLowerCase()]: operation };
  }
  const webhooks = Object.fromEntries(EVENT_TYPES.map((type) => [type, webhookEvent(placements, type)]));

  const schemas = placements.convert();
  for (const fillIn of afterConversion) fillIn();

  // A tag without a description is listed bare; the lint's tag-description rule refuses it (redocly.yaml).
  const tags = [...new Set([...endpoints.map((endpoint) => endpoint.tag), WEBHOOK_EVENTS_TAG])].map((name) =>
    TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name },
  );

  return {
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
    tags,
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An account API key: `Authorization: Bearer <api_key>`',
        },
        driverToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'A driver’s login token: `Authorization: Bearer <login_token>`',
        },
      },
      schemas,
    },
    paths,
    webhooks,
  };
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
function webhookEvent(placements: SchemaPlacements, type: EventType) {
  const doc = EVENT_DOCS[type];
  const headers = exampleDeliveryHeaders(type);
  return {
    post: {
      operationId: operationIdOf(type),
      summary: `${type}: ${doc.summary}`,
      description: `${doc.description}\n\nAt least once: deduplicate by \`webhook-id\` (the \`event_id\`). A 2xx within 10 s ends the delivery; anything else is retried (about 1, 5, 15, 30 minutes, then hourly, 12 attempts in all).`,
      tags: [WEBHOOK_EVENTS_TAG],
      // The service calls the receiver with no credentials of the receiver's: receivers verify the signature.
      security: [],
      parameters: Object.entries(DELIVERY_HEADER_DOCS).map(
        ([name, header]): Parameter => ({
          name,
          in: 'header',
          required: true,
          description: header.description,
          ...(header.deprecated ? { deprecated: true } : {}),
          schema: name === 'X-Event-Type' ? { type: 'string', const: type } : { type: 'string' },
          example: headers[name],
        }),
      ),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: placements.place(WEBHOOK_BODY_SCHEMAS[type]),
            example: webhookBodyOf(exampleEvent(type)),
          },
        },
      },
      responses: {
        '2XX': { description: 'received: the delivery has succeeded' },
        default: { description: 'not received (as is no answer within 10 s): the attempt is retried' },
      },
    },
  };
}
