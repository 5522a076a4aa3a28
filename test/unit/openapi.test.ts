import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../functions/endpoints/index';
import { buildOpenApiDocument } from '../../functions/shared/openapi';

const document = buildOpenApiDocument(endpoints) as unknown as {
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

  it.each(endpoints)(
    '$operationId: its success responses list the media types it answers with',
    (endpoint) => {
      const operation = document.paths[endpoint.path]?.[endpoint.method.toLowerCase()];
      for (const [status, response] of Object.entries(endpoint.responses)) {
        const documented = operation?.responses[status] as { content: Record<string, unknown> } | undefined;
        const content = documented?.content ?? {};
        expect(Object.keys(content)).toEqual(response.contentTypes ?? ['application/json']);
      }
    },
  );

  it('documents the docs page as HTML, not JSON', () => {
    const page = document.paths['/docs']?.get?.responses['200'] as { content: Record<string, unknown> };
    expect(Object.keys(page.content)).toEqual(['text/html']);
  });
});
