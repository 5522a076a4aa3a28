import { describe, expect, it } from 'vitest';
import { endpoints } from '../../functions/api/index';
import { buildOpenApiDocument, exampleDeliveryHeaders } from '../../functions/api/openapi';
import { EVENT_TYPES, type EventType, webhookBodyOf } from '../../functions/models/event-catalog';
import { exampleEvent } from '../../functions/models/event-docs';
import { type ObservedResponse, type OpenApiDocument, responseContract } from '../support/openapi-contract';

// The e2e tests' client checks every answer with this contract (test/support/http.ts, `expectDocumented`).
const contract = responseContract(buildOpenApiDocument(endpoints) as unknown as OpenApiDocument);
const json = 'application/json';
const violations = (response: Partial<ObservedResponse> & Pick<ObservedResponse, 'path'>) =>
  contract.violations({ method: 'GET', status: 200, contentType: json, body: undefined, ...response });

const dcs = { status: 'success', data: { dcs: [{ id: 'dc-1', name: 'North', time_zone: 'Europe/Berlin' }] } };
const notFound = { status: 'error', data: { code: 3003, message: 'route not found' } };
const attempt = {
  id: 'a-1',
  timestamp: 1_700_000_000_000,
  status: 'VISIT_LATER',
  reason: null,
  location: { latitude: 52.5, longitude: 13.4 },
  items: [],
  driver_id: 'd-1',
  proof_ids: [],
  signer_name: null,
  scans: [],
  requirements: { photos: 0, signature: false, pin: false, minimum_age: null, scan_items: false },
  pin_verified: false,
  age_check: null,
};
const ATTEMPTS = '/driver/routes/r-1/waypoints/w-1/attempts';

describe('the response contract of the e2e client', () => {
  it('passes an answer the operation documents', () => {
    expect(violations({ path: '/dcs', body: dcs })).toEqual([]);
    expect(violations({ path: '/dcs?limit=1', body: dcs })).toEqual([]);
  });

  it('fails a status the operation does not document', () => {
    expect(violations({ path: '/dcs', status: 202, body: dcs })).toEqual([
      expect.stringContaining('listDcs does not document status 202'),
    ]);
    expect(violations({ path: '/dcs', status: 404, body: notFound })).toEqual([
      expect.stringContaining('listDcs does not document status 404'),
    ]);
  });

  it('fails a body that does not match the schema of its status, naming the field', () => {
    const nameless = { status: 'success', data: { dcs: [{ id: 'dc-1', time_zone: 'UTC' }] } };
    expect(violations({ path: '/dcs', body: nameless })).toEqual([
      expect.stringMatching(/body\/data\/dcs\/0 must have required property 'name'/),
    ]);
    expect(violations({ path: '/dcs', status: 401, body: dcs }).length).toBeGreaterThan(0);
    expect(violations({ path: '/dcs', status: 401, body: { ...notFound, data: { code: '1001' } } })).toEqual([
      expect.stringMatching(/body\/data must have required property 'message'/),
      expect.stringMatching(/body\/data\/code must be integer/),
    ]);
  });

  it('fails a media type the status does not document', () => {
    expect(violations({ path: '/dcs', contentType: 'text/plain', body: dcs })).toEqual([
      expect.stringContaining('not text/plain'),
    ]);
    expect(violations({ path: '/dcs', contentType: 'application/json; charset=utf-8', body: dcs })).toEqual(
      [],
    );
  });

  it('matches percent-encoded ids to the path template, a "/" inside an id included', () => {
    const path = '/dcs/dc%201/routes/r%2F%F0%9F%9A%9A/invoices';
    // A missing route is 400 (3003) on this read, as the spec says.
    expect(violations({ path, status: 400, body: notFound })).toEqual([]);
    expect(violations({ path, status: 202, body: notFound })).toEqual([
      expect.stringContaining('getInvoiceStatus does not document status 202'),
    ]);
  });

  it('takes a fixed segment over a parameter where two templates match, as the gateway routes', () => {
    // import-status documents 202 (still importing); the invoices of a route named import-status do not.
    const pending = { status: 'success', data: { status: 'PENDING' } };
    const [violation] = violations({
      path: '/dcs/dc-1/routes/import-status/invoices',
      status: 202,
      body: pending,
    });
    expect(violation ?? '').not.toContain('does not document status');
  });

  it('holds a request no operation documents to the error envelope', () => {
    const unknown = { status: 'error', data: { code: 1007, message: 'no such resource' } };
    expect(violations({ path: '/dcs/dc-1/drivers/x/unknown', status: 404, body: unknown })).toEqual([]);
    expect(violations({ path: '/dcs/dc-1/drivers/x/unknown', status: 200, body: dcs })).toEqual([
      expect.stringContaining('no operation documents GET /dcs/dc-1/drivers/x/unknown'),
    ]);
    expect(violations({ method: 'DELETE', path: '/dcs', status: 404, body: dcs }).length).toBeGreaterThan(0);
  });

  it('documents an attempt without a location as null, as the service records it', () => {
    const post = { method: 'POST', path: ATTEMPTS };
    expect(violations({ ...post, body: { status: 'success', data: { attempt } } })).toEqual([]);
    const withoutLocation = { ...attempt, location: null };
    expect(violations({ ...post, body: { status: 'success', data: { attempt: withoutLocation } } })).toEqual(
      [],
    );
    const reasoned = { ...attempt, status: 'FAILED', reason: { code: 'CLOSED', message: 'shop closed' } };
    expect(violations({ ...post, body: { status: 'success', data: { attempt: reasoned } } })).toEqual([]);
    const locationless = { ...attempt, location: { latitude: 52.5 } };
    expect(violations({ ...post, body: { status: 'success', data: { attempt: locationless } } })).not.toEqual(
      [],
    );
  });
});

describe('the response contract: headers', () => {
  const throttled = { status: 'error', data: { code: 1008, message: 'too many requests' } };
  const answer = (headers: Record<string, string>) =>
    violations({ path: '/dcs', status: 429, body: throttled, headers: new Headers(headers) });

  it('fails an answer without a header its status requires, or with a value the header does not take', () => {
    expect(answer({ 'Retry-After': '1' })).toEqual([]);
    expect(answer({})).toEqual([expect.stringContaining('the required header Retry-After is missing')]);
    expect(answer({ 'Retry-After': 'Fri, 27 Nov 2026 10:00:00 GMT' })).toEqual([
      expect.stringContaining('the header Retry-After is not a non-negative integer'),
    ]);
  });

  it('fails a header of the API that the status does not document', () => {
    expect(violations({ path: '/dcs', body: dcs, headers: new Headers() })).toEqual([]);
    expect(violations({ path: '/dcs', body: dcs, headers: new Headers({ 'Retry-After': '1' }) })).toEqual([
      expect.stringContaining('the header retry-after came, which this status does not document'),
    ]);
  });
});

describe('the response contract: fields the document does not list', () => {
  it('fails a field the service sends but the schema does not list', () => {
    const extra = {
      status: 'success',
      data: { dcs: [{ id: 'dc-1', name: 'N', time_zone: 'UTC', city: 'x' }] },
    };
    expect(violations({ path: '/dcs', body: extra })).toEqual([
      expect.stringMatching(/body\/data\/dcs\/0 must NOT have unevaluated properties .*"city"/),
    ]);
  });

  it('checks an object composed with allOf as a whole: the fields of every branch, and no other', () => {
    const document: OpenApiDocument = {
      openapi: '3.1.0',
      components: {
        schemas: { Base: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
      },
      paths: {
        '/things/{id}': {
          get: {
            operationId: 'getThing',
            responses: {
              200: {
                description: 'a thing',
                content: {
                  [json]: {
                    schema: {
                      allOf: [
                        { $ref: '#/components/schemas/Base' },
                        { type: 'object', properties: { size: { type: 'integer' } } },
                      ],
                    },
                  },
                },
              },
            },
          },
        },
      },
    };
    const thing = (body: unknown) =>
      responseContract(document).violations({
        method: 'GET',
        path: '/things/a%2Fb',
        status: 200,
        contentType: json,
        body,
      });
    expect(thing({ id: 'a/b', size: 3 })).toEqual([]);
    expect(thing({ id: 'a/b', size: 3, colour: 'red' })).toEqual([
      expect.stringMatching(/must NOT have unevaluated properties .*"colour"/),
    ]);
    expect(thing({ size: 3 })).toEqual([expect.stringMatching(/must have required property 'id'/)]);
  });
});

describe('the webhook contract of the e2e receivers', () => {
  /** The example delivery of a type as the service sends it, with its body changed by `change`. */
  function delivery(
    type: EventType,
    change: (body: Record<string, unknown>) => Record<string, unknown> = (b) => b,
  ) {
    const body = change(webhookBodyOf(exampleEvent(type)) as unknown as Record<string, unknown>);
    const headers = Object.fromEntries(
      Object.entries(exampleDeliveryHeaders(type)).map(([name, value]) => [name.toLowerCase(), value]),
    );
    return { headers, body: JSON.stringify(body) };
  }

  it.each(EVENT_TYPES)('passes the example delivery of %s', (type) => {
    expect(contract.deliveryViolations(delivery(type))).toEqual([]);
  });

  it('fails a field the body of its type does not list, a missing field and a missing header', () => {
    expect(
      contract.deliveryViolations(delivery('ROUTE_FINISHED', (body) => ({ ...body, extra: 1 }))),
    ).toEqual([expect.stringMatching(/ROUTE_FINISHED delivery: body must NOT have unevaluated properties/)]);
    const { event_id: _, ...withoutId } = webhookBodyOf(exampleEvent('ROUTE_FINISHED'));
    expect(
      contract.deliveryViolations({ ...delivery('ROUTE_FINISHED'), body: JSON.stringify(withoutId) }),
    ).toEqual([expect.stringMatching(/must have required property 'event_id'/)]);
    const { headers, body } = delivery('ROUTE_FINISHED');
    const { 'webhook-signature': __, ...unsigned } = headers;
    expect(contract.deliveryViolations({ headers: unsigned, body })).toEqual([
      'ROUTE_FINISHED: the required header webhook-signature is missing',
    ]);
    expect(contract.deliveryViolations({ headers: { ...headers, 'x-event-type': 'PING' }, body })).toEqual([
      expect.stringMatching(/the header X-Event-Type is "PING", not ROUTE_FINISHED/),
    ]);
  });

  it('passes ROUTE_IMPORT_FAILED with the route’s next sequence (a refused revision) and with none (a failed import)', () => {
    expect(
      contract.deliveryViolations(delivery('ROUTE_IMPORT_FAILED', (body) => ({ ...body, sequence: 7 }))),
    ).toEqual([]);
    expect(
      contract.deliveryViolations(delivery('ROUTE_IMPORT_FAILED', (body) => ({ ...body, sequence: null }))),
    ).toEqual([]);
    expect(
      contract.deliveryViolations(delivery('ROUTE_IMPORT_FAILED', (body) => ({ ...body, sequence: 0 })))
        .length,
    ).toBeGreaterThan(0);
  });
});
