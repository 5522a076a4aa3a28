import { existsSync, globSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AUTHORIZERS, checkedByGateway } from '../../functions/api/authorizers';
import {
  bundled,
  type EndpointDefinition,
  isEndpointDefinition,
  takesIdempotencyKey,
} from '../../functions/api/define';
import { endpoints } from '../../functions/api/index';
import { sliceOf } from '../../lib/slices';

/** The Lambda of a definition: `handler.ts` beside the module that defines it. */
const handlerFile = (definition: { module: string }) =>
  fileURLToPath(new URL('handler.ts', definition.module));

describe('the endpoint list', () => {
  it('has unique operationIds and unique method + path pairs', () => {
    expect(new Set(endpoints.map((e) => e.operationId)).size).toBe(endpoints.length);
    expect(new Set(endpoints.map((e) => `${e.method} ${e.path}`)).size).toBe(endpoints.length);
  });

  it('holds every endpoint every slice defines, each once: exporting a slice from its group registers it', async () => {
    const slices = globSync('functions/api/*/*/endpoint.ts');
    expect(slices.length).toBeGreaterThan(40);
    for (const slice of slices) {
      const module = (await import(`../../${slice}`)) as Record<string, unknown>;
      const defined = Object.values(module).filter(isEndpointDefinition);
      expect(defined.length, slice).toBeGreaterThan(0);
      for (const endpoint of defined)
        expect(
          endpoints.filter((e) => e === endpoint),
          slice,
        ).toHaveLength(1);
    }
  });

  it.each(endpoints.map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s has a handler module beside its definition exporting a handler built from a definition of its slice',
    async (_, endpoint) => {
      expect(existsSync(handlerFile(endpoint)), sliceOf(endpoint.module).repoEntry).toBe(true);
      const module = (await import(handlerFile(endpoint))) as {
        handler?: { endpoint?: EndpointDefinition; endpoints?: readonly EndpointDefinition[] };
      };
      expect(typeof module.handler).toBe('function');
      // A handler serving definitions with different requests (a GET and a POST with a body) lists them all.
      const bound =
        module.handler?.endpoints?.find((one) => one.method === endpoint.method) ?? module.handler?.endpoint;
      expect(bound?.module).toBe(endpoint.module);
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
      expect(Object.keys(bundled(endpoint.responses)).length).toBeGreaterThan(0);
    },
  );

  it.each(endpoints.filter((e) => e.bundledFiles?.length).map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s declares bundled files that its handler module resolves under node_modules/',
    (_, endpoint) => {
      // CDK copies these to node_modules/<file> beside the bundle; the handler reads them from there.
      const resolve = createRequire(handlerFile(endpoint)).resolve;
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
    expect(authorizer && existsSync(handlerFile(authorizer))).toBe(true);
  });

  it('puts exactly the driver-token endpoints under /driver/, where no API key is accepted', () => {
    for (const endpoint of endpoints) {
      expect(endpoint.path.startsWith('/driver/'), `${endpoint.method} ${endpoint.path}`).toBe(
        endpoint.auth === 'driverToken',
      );
    }
  });

  it('gives every endpoint that takes an Idempotency-Key write access to the table, which keeps the keys', () => {
    const keyed = endpoints.filter(takesIdempotencyKey);
    expect(keyed.map((endpoint) => endpoint.method).sort()).toEqual(
      // Every write of a caller with credentials: a public one (the one-click unsubscribe) names no caller.
      endpoints
        .filter((endpoint) => endpoint.method !== 'GET' && endpoint.auth !== 'none')
        .map((endpoint) => endpoint.method)
        .sort(),
    );
    for (const endpoint of keyed) expect(endpoint.access.table, endpoint.operationId).toBe('readWrite');
  });

  it('gives the endpoints of one slice (one Lambda) the same auth kind and table access', () => {
    const byHandler = new Map<string, EndpointDefinition>();
    for (const endpoint of endpoints) {
      const first = byHandler.get(sliceOf(endpoint.module).name) ?? endpoint;
      byHandler.set(sliceOf(endpoint.module).name, first);
      expect([endpoint.auth, endpoint.access]).toEqual([first.auth, first.access]);
    }
  });
});
