import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { type EndpointDefinition, isDcScoped } from '../endpoints/define';
import { ERROR_CODES } from './error-codes';

const ErrorEnvelope = z
  .object({ status: z.literal('error'), data: z.object({ code: z.number().int(), message: z.string() }) })
  .meta({ id: 'Error' });

const codeMeaning = new Map<number, { httpStatus: number; meaning: string }>(
  Object.values(ERROR_CODES).map((entry) => [entry.code, entry]),
);

/** Error responses an endpoint can give, by HTTP status, with the codes each one carries. */
function errorResponses(endpoint: EndpointDefinition): Map<number, number[]> {
  const codes: number[] = [1000, ...endpoint.errorCodes];
  const { params, query, body } = endpoint.request;
  if (params || query || body) codes.push(1006);
  if (body) codes.push(1004, 1005);
  if (endpoint.auth !== 'none') codes.push(1001);
  // The account's usage plan: its throttle (429), and no registered usage key (403).
  if (endpoint.auth === 'apiKey') codes.push(1008, 1009);
  if (isDcScoped(endpoint)) codes.push(1002);
  const byStatus = new Map<number, number[]>();
  for (const code of [...new Set(codes)].sort()) {
    const status = codeMeaning.get(code)?.httpStatus ?? 400;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
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

  for (const endpoint of endpoints) {
    const { params, query, body } = endpoint.request;
    const responses: Record<string, { description: string; content: Record<string, { schema: z.ZodType }> }> =
      {};
    for (const [status, response] of Object.entries(endpoint.responses)) {
      const schema =
        endpoint.envelope === false
          ? response.data
          : z.object({ status: z.literal('success'), data: response.data });
      const contentTypes = response.contentTypes ?? ['application/json'];
      responses[status] = {
        description: response.description,
        content: Object.fromEntries(contentTypes.map((type) => [type, { schema }])),
      };
    }
    for (const [status, codes] of errorResponses(endpoint)) {
      const description = codes
        .map((code) => `${code}: ${codeMeaning.get(code)?.meaning ?? 'see the description'}`)
        .join('; ');
      responses[String(status)] = { description, content: { 'application/json': { schema: ErrorEnvelope } } };
    }
    registry.registerPath({
      method: endpoint.method.toLowerCase() as Lowercase<EndpointDefinition['method']>,
      path: endpoint.path,
      operationId: endpoint.operationId,
      summary: endpoint.summary,
      description: endpoint.description,
      tags: [endpoint.tag],
      security: endpoint.auth === 'none' ? [] : [{ [endpoint.auth]: [] }],
      request: {
        params,
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

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Delivery Route Service',
      version: '1.0.0',
      description:
        'Every response is an envelope `{status: "success" | "error", data}`; errors carry `data.code` and `data.message`.',
    },
  });
}
