import { Validator } from '@seriousme/openapi-schema-validator';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bundled, takesIdempotencyKey } from '../../functions/api/define';
import { endpoints } from '../../functions/api/index';
import {
  buildOpenApiDocument,
  DELIVERY_HEADER_DOCS,
  type DocumentedEndpoint,
  EXAMPLE_DELIVERY,
  exampleDeliveryHeaders,
} from '../../functions/api/openapi';
import { verifySignature } from '../../functions/domain/webhook-http';
import {
  EVENT_TYPES,
  type EventType,
  WEBHOOK_BODY_SCHEMAS,
  webhookBody,
} from '../../functions/models/event-catalog';
import { exampleEvent } from '../../functions/models/event-docs';
import { httpStatusOfCode } from '../../functions/shared/error-codes';
import * as z from '../../functions/shared/zod';

interface DocumentedWebhook {
  post: {
    operationId: string;
    parameters: { name: string; in: string; required: boolean; example: string; deprecated?: boolean }[];
    requestBody: { content: Record<string, { schema: { $ref: string }; example: Record<string, unknown> }> };
    responses: Record<string, unknown>;
  };
}

const document = buildOpenApiDocument(endpoints) as unknown as {
  openapi: string;
  webhooks: Record<string, DocumentedWebhook>;
  components: { schemas: Record<string, unknown> };
  paths: Record<
    string,
    Record<string, { operationId: string; security: unknown[]; responses: Record<string, unknown> }>
  >;
};

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(
      structuredClone(document) as Parameters<Validator['validate']>[0],
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has one operation per endpoint of the endpoint list, with its operationId', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(
        ([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`,
      ),
    );
    expect(operations.sort()).toEqual(endpoints.map((e) => `${e.method} ${e.path} ${e.operationId}`).sort());
  });

  it('documents 401 for every endpoint behind a key and 403 for every DC-scoped one', () => {
    for (const endpoint of endpoints) {
      const operation = document.paths[endpoint.path]?.[endpoint.method.toLowerCase()];
      expect(operation, endpoint.operationId).toBeDefined();
      if (endpoint.auth !== 'none')
        expect(Object.keys(operation?.responses ?? {}), endpoint.operationId).toContain('401');
      if (endpoint.path.includes('{dc_id}'))
        expect(Object.keys(operation?.responses ?? {}), endpoint.operationId).toContain('403');
    }
  });

  it('documents 429 for every operation: the stage throttles every method, public and driver-app ones too', () => {
    for (const endpoint of endpoints) {
      const operation = document.paths[endpoint.path]?.[endpoint.method.toLowerCase()];
      expect(Object.keys(operation?.responses ?? {}), endpoint.operationId).toContain('429');
    }
  });

  it('documents that every 429 says when to retry: a required Retry-After of whole seconds', () => {
    for (const endpoint of endpoints) {
      const operation = document.paths[endpoint.path]?.[endpoint.method.toLowerCase()];
      const throttled = operation?.responses['429'] as { headers?: Record<string, unknown> };
      expect(throttled.headers, endpoint.operationId).toEqual({
        'Retry-After': {
          description: expect.any(String),
          required: true,
          schema: { type: 'integer', minimum: 1 },
        },
      });
    }
  });

  it('documents the Idempotency-Key on every write, its 409 and 422, and Idempotent-Replayed on what a replay answers', () => {
    for (const endpoint of endpoints) {
      const operation = document.paths[endpoint.path]?.[endpoint.method.toLowerCase()] as {
        parameters?: { name: string; in: string; required: boolean }[];
        responses: Record<string, { headers?: Record<string, unknown> }>;
      };
      // Every write of a caller with credentials; a public one (the one-click unsubscribe) names no caller to key on.
      const write = takesIdempotencyKey(endpoint);
      const keyParameter = operation.parameters?.find((parameter) => parameter.name === 'Idempotency-Key');
      expect(keyParameter, endpoint.operationId).toEqual(
        write ? expect.objectContaining({ in: 'header', required: false }) : undefined,
      );
      expect(Object.keys(operation.responses).filter((status) => ['409', '422'].includes(status))).toEqual(
        write ? ['409', '422'] : [],
      );
      const marked = Object.entries(operation.responses)
        .filter(([, response]) => response.headers?.['Idempotent-Replayed'])
        .map(([status]) => status);
      // A 409 is a use case's refusal, kept and replayed, when the endpoint has a 409 code of its own.
      const ownConflict = endpoint.errorCodes.some((code) => httpStatusOfCode(code) === 409);
      const replayable = Object.keys(operation.responses).filter(
        (status) =>
          Number(status) < 500 &&
          (!['401', '409', '413', '422', '429'].includes(status) || (status === '409' && ownConflict)),
      );
      expect(marked, endpoint.operationId).toEqual(write ? replayable : []);
    }
  });

  it('documents Retry-After on a 409 that is also a use case’s refusal as sent only with 1011', () => {
    const attempts = document.paths['/driver/routes/{route_id}/waypoints/{waypoint_id}/attempts']?.post;
    const conflict = attempts?.responses['409'] as { description: string; headers: Record<string, unknown> };
    expect(conflict.description).toMatch(/^1011: .*; 9105: /);
    expect(conflict.headers['Retry-After']).toMatchObject({
      required: false,
      description: expect.stringMatching(/only with 1011$/),
    });
    expect(conflict.headers['Idempotent-Replayed']).toBeDefined();
  });

  it('documents the answers without a body: the docs page’s redirect from /docs/, a docs file’s 304', () => {
    const bodyless = { description: expect.any(String) };
    expect(document.paths['/docs']?.get?.responses['302']).toEqual(bodyless);
    expect(document.paths['/docs/assets/{file}']?.get?.responses['304']).toEqual(bodyless);
  });

  it.each(endpoints)(
    '$operationId: its success responses list the media types it answers with (none for a body-less one)',
    (endpoint) => {
      const operation = document.paths[endpoint.path]?.[endpoint.method.toLowerCase()];
      for (const [status, response] of Object.entries(bundled(endpoint.responses))) {
        const documented = operation?.responses[status] as { content: Record<string, unknown> } | undefined;
        const content = documented?.content ?? {};
        const mediaTypes = 'data' in response ? (response.contentTypes ?? ['application/json']) : [];
        const alternatives = [
          ...(endpoint.htmlPage && 'data' in response ? ['text/html'] : []),
          ...(endpoint.geoJson && status === '200' ? ['application/geo+json'] : []),
        ];
        expect(Object.keys(content)).toEqual([...mediaTypes, ...alternatives]);
      }
    },
  );

  it('documents every nullable component reference as anyOf with null, never as an allOf no null satisfies', () => {
    const nullableAllOf: string[] = [];
    JSON.stringify(document, (key, value) => {
      const admitsNull = (branch: { type?: unknown }) => [branch.type].flat().includes('null');
      if (key === 'allOf' && (value as { type?: unknown }[]).some(admitsNull))
        nullableAllOf.push(JSON.stringify(value));
      return value;
    });
    expect(nullableAllOf).toEqual([]);
  });

  it('documents the tracking page as JSON or HTML, its own refusals too, API Gateway’s as JSON only', () => {
    const responses = document.paths['/track/{token}']?.get?.responses as Record<
      string,
      { content: Record<string, unknown> }
    >;
    expect(Object.keys(responses['200']?.content ?? {})).toEqual(['application/json', 'text/html']);
    for (const status of ['404', '410', '500'])
      expect(Object.keys(responses[status]?.content ?? {}), status).toEqual([
        'application/json',
        'text/html',
      ]);
    expect(Object.keys(responses['429']?.content ?? {})).toEqual(['application/json']);
  });

  it('documents the docs page as HTML, not JSON', () => {
    const page = document.paths['/docs']?.get?.responses['200'] as { content: Record<string, unknown> };
    expect(Object.keys(page.content)).toEqual(['text/html']);
  });
});

describe('the OpenAPI document of schemas written with zod/mini', () => {
  // The generator reads schemas through zod core only, so an endpoint written with zod's functional API is
  // documented as one written with `zod` is.
  const Gadget = z
    .object({
      name: z.string().check(z.minLength(1), z.maxLength(40)),
      weight_grams: z.optional(z.int().check(z.minimum(0))),
      owner: z.nullable(z.string()),
    })
    .check(z.meta({ id: 'MiniGadget', description: 'a gadget', example: { name: 'lamp', owner: null } }));
  const endpoint: DocumentedEndpoint = {
    operationId: 'replaceMiniGadget',
    method: 'PUT',
    path: '/dcs/{dc_id}/mini-gadgets/{gadget_id}',
    auth: 'apiKey',
    module: import.meta.url,
    summary: 'Replace a gadget',
    tag: 'Gadgets',
    access: { table: 'readWrite' },
    request: {
      params: z.object({
        dc_id: z.string().check(z.meta({ description: 'the DC' })),
        gadget_id: z.string().check(z.maxLength(64), z.meta({ description: 'the gadget' })),
      }),
      query: z.object({
        dry_run: z.optional(z.literal('true').check(z.meta({ description: 'only check' }))),
      }),
      body: Gadget,
    },
    responses: { 200: { description: 'the gadget', data: z.object({ gadget: Gadget }) } },
    errorCodes: [1003],
  };
  const miniDocument = buildOpenApiDocument([endpoint]) as unknown as {
    paths: Record<string, Record<string, Record<string, unknown>>>;
    components: { schemas: Record<string, unknown> };
  };
  const operation = miniDocument.paths['/dcs/{dc_id}/mini-gadgets/{gadget_id}']?.put;

  it('documents its parameters with their descriptions, which are required, and their schemas', () => {
    expect(operation?.parameters).toEqual([
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }),
      {
        name: 'dc_id',
        in: 'path',
        required: true,
        description: 'the DC',
        schema: { type: 'string', description: 'the DC' },
      },
      {
        name: 'gadget_id',
        in: 'path',
        required: true,
        description: 'the gadget',
        schema: { type: 'string', maxLength: 64, description: 'the gadget' },
      },
      {
        name: 'dry_run',
        in: 'query',
        required: false,
        description: 'only check',
        schema: { type: 'string', const: 'true', description: 'only check' },
      },
    ]);
  });

  it('documents its body and response by reference to the component its id names, with its metadata', () => {
    const gadgetRef = { $ref: '#/components/schemas/MiniGadget' };
    expect(operation?.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: gadgetRef } },
    });
    expect(operation?.responses).toMatchObject({
      200: {
        description: 'the gadget',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: {
                status: { type: 'string', const: 'success' },
                data: { type: 'object', properties: { gadget: gadgetRef }, required: ['gadget'] },
              },
              required: ['status', 'data'],
            },
          },
        },
      },
      404: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    });
    expect(miniDocument.components.schemas.MiniGadget).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 40 },
        weight_grams: { type: 'integer', minimum: 0 },
        owner: { type: ['string', 'null'] },
      },
      required: ['name', 'owner'],
      description: 'a gadget',
      example: { name: 'lamp', owner: null },
    });
  });

  it('holds only the components it refers to', () => {
    expect(Object.keys(miniDocument.components.schemas)).toContain('Error');
    expect(Object.keys(miniDocument.components.schemas)).not.toContain('Driver');
  });
});

describe('the OpenAPI document’s webhooks (what receivers get)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is OpenAPI 3.1, which has a webhooks section', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
  });

  it('documents every event type of the event catalog as a webhook, PING included, and nothing else', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    expect(EVENT_TYPES).toContain('PING');
    const operationIds = [
      ...Object.values(document.paths).flatMap((methods) => Object.values(methods).map((o) => o.operationId)),
      ...Object.values(document.webhooks).map((webhook) => webhook.post.operationId),
    ];
    expect(new Set(operationIds).size).toBe(operationIds.length);
  });

  it.each(EVENT_TYPES)(
    '%s: its example is the body the service sends for the example event, and fits the documented schema',
    (type: EventType) => {
      const media = document.webhooks[type]?.post.requestBody.content['application/json'];
      expect(media?.example).toEqual(JSON.parse(webhookBody(exampleEvent(type))));
      expect(media?.example.event).toBe(type);
      const schema = WEBHOOK_BODY_SCHEMAS[type];
      // Every field of the example is declared (a strict parse), and the schema is in the components.
      expect(() => z.strictObject(schema.shape).parse(media?.example)).not.toThrow();
      const name = media?.schema.$ref.replace('#/components/schemas/', '') ?? '';
      expect(document.components.schemas[name]).toBeDefined();
      expect(name).toBe(z.globalRegistry.get(schema)?.id);
    },
  );

  it.each(EVENT_TYPES)(
    '%s: documents every header a delivery carries, each with the value the example’s delivery has',
    (type: EventType) => {
      const parameters = document.webhooks[type]?.post.parameters ?? [];
      const sent = exampleDeliveryHeaders(type);
      // Content-Type is the request body's media type.
      expect(parameters.map((p) => p.name).sort()).toEqual(
        Object.keys(sent)
          .filter((name) => name !== 'Content-Type')
          .sort(),
      );
      expect(Object.keys(DELIVERY_HEADER_DOCS).sort()).toEqual(parameters.map((p) => p.name).sort());
      for (const parameter of parameters) {
        expect(parameter).toMatchObject({ in: 'header', required: true, example: sent[parameter.name] });
      }
      expect(parameters.filter((p) => p.deprecated).map((p) => p.name)).toEqual([
        'X-Event-Id',
        'X-Signature',
      ]);
      expect(sent['X-Event-Type']).toBe(type);
    },
  );

  it.each(EVENT_TYPES)(
    '%s: the example headers sign the example body with the example secret, as receivers verify them',
    (type: EventType) => {
      const webhook = document.webhooks[type]?.post;
      const body = JSON.stringify(webhook?.requestBody.content['application/json']?.example);
      const headers = Object.fromEntries((webhook?.parameters ?? []).map((p) => [p.name, p.example]));
      // At the example's own time: the standardwebhooks package refuses timestamps five minutes off.
      vi.useFakeTimers({ now: Number(headers['webhook-timestamp']) * 1000 });
      expect(new Webhook(EXAMPLE_DELIVERY.secret).verify(body, headers)).toEqual(JSON.parse(body));
      expect(verifySignature(EXAMPLE_DELIVERY.secret, headers['X-Signature'] ?? '', body)).toBe(true);
      expect(() => new Webhook(EXAMPLE_DELIVERY.secret).verify(`${body} `, headers)).toThrow();
    },
  );
});
