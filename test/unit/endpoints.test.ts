import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AUTHORIZERS, checkedByGateway } from '../../functions/endpoints/authorizers';
import type { EndpointDefinition } from '../../functions/endpoints/define';
import { endpoints } from '../../functions/endpoints/index';

const handlerFile = (handler: string) =>
  fileURLToPath(new URL(`../../functions/handlers/${handler}.ts`, import.meta.url));

describe('the endpoint list', () => {
  it('has unique operationIds and unique method + path pairs', () => {
    expect(new Set(endpoints.map((e) => e.operationId)).size).toBe(endpoints.length);
    expect(new Set(endpoints.map((e) => `${e.method} ${e.path}`)).size).toBe(endpoints.length);
  });

  it.each(endpoints.map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s has a handler module exporting a handler built from this endpoint definition',
    async (_, endpoint) => {
      expect(existsSync(handlerFile(endpoint.handler)), `functions/handlers/${endpoint.handler}.ts`).toBe(
        true,
      );
      const module = (await import(handlerFile(endpoint.handler))) as {
        handler?: { endpoint?: EndpointDefinition };
      };
      expect(typeof module.handler).toBe('function');
      const bound = module.handler?.endpoint;
      expect(bound?.handler).toBe(endpoint.handler);
      expect(bound?.path).toBe(endpoint.path);
      expect(bound?.request).toEqual(endpoint.request);
    },
  );

  it.each(endpoints.map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s declares schemas for its path parameters and success response',
    (_, endpoint) => {
      const pathParams = [...endpoint.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
      const declared = Object.keys(endpoint.request.params?.shape ?? {}).sort();
      expect(declared).toEqual(pathParams);
      expect(Object.keys(endpoint.responses).length).toBeGreaterThan(0);
    },
  );

  it.each(endpoints.filter((e) => e.bundledFiles?.length).map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s declares bundled files that its handler module resolves under node_modules/',
    (_, endpoint) => {
      // CDK copies these to node_modules/<file> beside the bundle; the handler reads them from there.
      const resolve = createRequire(handlerFile(endpoint.handler)).resolve;
      for (const file of endpoint.bundledFiles ?? []) {
        expect(file, file).toMatch(/^(@[\w.-]+\/)?[\w.-]+\/[\w./-]+$/);
        expect(file.split('/'), file).not.toContain('..');
        expect(resolve(file).replaceAll('\\', '/').endsWith(`/node_modules/${file}`), file).toBe(true);
      }
    },
  );

  it.each(
    endpoints.filter((e) => checkedByGateway(e.auth)).map((e) => [`${e.method} ${e.path}`, e] as const),
  )('%s has an authorizer for its auth kind', (_, endpoint) => {
    const authorizer = AUTHORIZERS[endpoint.auth];
    expect(authorizer).toBeDefined();
    expect(existsSync(handlerFile(authorizer?.handler ?? 'missing'))).toBe(true);
  });

  it('puts exactly the driver-token endpoints under /driver/, where no API key is accepted', () => {
    for (const endpoint of endpoints) {
      expect(endpoint.path.startsWith('/driver/'), `${endpoint.method} ${endpoint.path}`).toBe(
        endpoint.auth === 'driverToken',
      );
    }
  });

  it('gives a handler shared by several endpoints the same auth kind and table access', () => {
    const byHandler = new Map<string, EndpointDefinition>();
    for (const endpoint of endpoints) {
      const first = byHandler.get(endpoint.handler) ?? endpoint;
      byHandler.set(endpoint.handler, first);
      expect([endpoint.auth, endpoint.access]).toEqual([first.auth, first.access]);
    }
  });
});
