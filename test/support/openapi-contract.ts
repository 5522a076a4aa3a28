/**
 * The API's contract as the tests hold it: an answer is checked against the OpenAPI document the service serves
 * (GET /openapi.json builds it from the same endpoint rows; test/e2e/gateway.test.ts checks the two are equal).
 *
 * The schemas are OpenAPI 3.1 Schema Objects, which are JSON Schema 2020-12 plus a few annotations, so they are
 * compiled by Ajv's 2020-12 validator (with ajv-formats for `format`), offline and in-process. OpenAPI response
 * validator packages were no fit: the maintained ones speak OpenAPI 3.0 only or come with a server framework.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { compileMethods, matchMethod } from '../../local/api-gateway/methods';

interface SchemaHolder {
  schema?: unknown;
}
interface DocumentedHeader {
  required?: boolean;
  schema?: { type?: string };
}
interface DocumentedResponse {
  headers?: Record<string, DocumentedHeader>;
  content?: Record<string, SchemaHolder>;
}
interface DocumentedOperation {
  operationId?: string;
  responses?: Record<string, DocumentedResponse>;
}
/** A POST the service sends to receivers (OpenAPI 3.1 `webhooks`): its headers and its body. */
interface DocumentedWebhook {
  post?: {
    parameters?: { name: string; in: string; required?: boolean; schema?: { const?: string } }[];
    requestBody?: { content?: Record<string, SchemaHolder> };
  };
}
export interface OpenApiDocument {
  openapi: string;
  paths?: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, DocumentedWebhook>;
  components?: { schemas?: Record<string, unknown> };
}

/** One webhook delivery as a receiver got it: its headers (lower-case names) and its raw body. */
export interface ObservedDelivery {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One answer as a client saw it. `path` is as sent: percent-encoded, with or without a query. */
export interface ObservedResponse {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  body: unknown;
  /**
   * The answer's headers, when observed: a header the document requires for the status must be there, and one
   * the document names for some answer of the API must be documented for this one.
   */
  headers?: Headers;
}

/** The OpenAPI 3.1 Schema Object's own fixed fields, beside JSON Schema's (annotations to a validator). */
const OPENAPI_SCHEMA_KEYWORDS = ['discriminator', 'xml', 'externalDocs', 'example'];
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
/** The schemas the document's components are compiled under; `#/components/schemas/` refs point into them. */
const COMPONENTS_ID = 'openapi-components';
const OPEN_COMPONENTS_ID = 'openapi-components-open';
const COMPONENT_REF = '#/components/schemas/';

/** A documented operation, routed as API Gateway routes its method (local/api-gateway/methods.ts). */
interface Route {
  /** Upper case, as the gateway names methods. */
  httpMethod: string;
  /** The document's path template. */
  path: string;
  operation: DocumentedOperation;
}

export interface ResponseContract {
  /** What is wrong with the answer by the document; empty when it is documented and fits. */
  violations(response: ObservedResponse): string[];
  /**
   * What is wrong with a webhook delivery by the document's `webhooks` section (the entry of the body's
   * `event`): a required header missing or not its stated value, a body that does not fit (closed, as
   * answers are). Empty when it is documented and fits.
   */
  deliveryViolations(delivery: ObservedDelivery): string[];
}

/** Compiles lazily: each response schema the first time an answer needs it, then from the cache. */
export function responseContract(document: OpenApiDocument): ResponseContract {
  // Strict (an unknown keyword is an error), but for strictTypes: the closing of a composed object adds
  // `unevaluatedProperties` beside an `allOf`, where no `type` is.
  const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
  addFormats(ajv);
  ajv.addVocabulary(OPENAPI_SCHEMA_KEYWORDS);
  const components = document.components?.schemas ?? {};
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: prepareEach(components) });
  ajv.addSchema({ $id: OPEN_COMPONENTS_ID, $defs: prepareEach(components, true) });
  const routes = routesOf(document);
  const compiledRoutes = compileMethods(routes);
  const apiHeaders = documentedHeaderNames(routes);
  const compiled = new Map<string, ValidateFunction>();
  const validatorFor = (key: string, schema: unknown) => {
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(prepare(schema) as object);
      compiled.set(key, validate);
    }
    return validate;
  };

  return {
    deliveryViolations(delivery) {
      let body: unknown;
      try {
        body = JSON.parse(delivery.body);
      } catch {
        return [`a delivery whose body is not JSON: ${delivery.body.slice(0, 200)}`];
      }
      const type = (body as { event?: unknown } | null)?.event;
      const post = typeof type === 'string' ? document.webhooks?.[type]?.post : undefined;
      if (!post) return [`a delivery of ${JSON.stringify(type)}, which the document's webhooks do not list`];
      const problems: string[] = [];
      for (const parameter of post.parameters ?? []) {
        if (parameter.in !== 'header') continue;
        const value = delivery.headers[parameter.name.toLowerCase()];
        if (value === undefined) {
          if (parameter.required) problems.push(`${type}: the required header ${parameter.name} is missing`);
        } else if (parameter.schema?.const !== undefined && value !== parameter.schema.const) {
          problems.push(
            `${type}: the header ${parameter.name} is ${JSON.stringify(value)}, not ${parameter.schema.const}`,
          );
        }
      }
      const schema = post.requestBody?.content?.['application/json']?.schema;
      if (schema === undefined) return [...problems, `${type}: the document gives no body schema`];
      const validate = validatorFor(`webhook ${type}`, schema);
      return validate(body) ? problems : [...problems, ...describe(`${type} delivery`, validate.errors)];
    },
    violations(response) {
      const path = response.path.split(/[?#]/, 1)[0] ?? '';
      const route = matchMethod(compiledRoutes, response.method.toUpperCase(), path)?.method;
      const request = `${response.method} ${path} -> ${response.status}`;
      if (!route) {
        // No operation of the document: the gateway's refusal, which must still be the error envelope.
        if (response.status < 400 || response.status >= 500)
          return [`${request}: no operation documents ${response.method} ${path}, yet it answered`];
        const validate = validatorFor('unrouted', { $ref: `${COMPONENT_REF}Error` });
        return validate(response.body) ? [] : describe(`${request} (no operation)`, validate.errors);
      }
      const operation = `${route.operation.operationId ?? `${route.httpMethod} ${route.path}`}`;
      const responses = route.operation.responses ?? {};
      const statusKey = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find(
        (key) => key in responses,
      );
      if (!statusKey)
        return [
          `${request}: ${operation} does not document status ${response.status} (documented: ${Object.keys(responses).join(', ')})`,
        ];
      const headerViolations = response.headers
        ? checkHeaders(response.headers, responses[statusKey]?.headers ?? {}, apiHeaders).map(
            (problem) => `${request}: ${operation} ${statusKey}: ${problem}`,
          )
        : [];
      if (headerViolations.length) return headerViolations;
      const content = responses[statusKey]?.content ?? {};
      if (Object.keys(content).length === 0)
        return response.body === undefined || response.body === ''
          ? []
          : [`${request}: ${operation} documents no body for ${statusKey}, yet one came`];
      const mediaType = response.contentType?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
      const mediaKey = [mediaType, `${mediaType.split('/')[0]}/*`, '*/*'].find((key) => key in content);
      if (!mediaKey)
        return [
          `${request}: ${operation} documents ${Object.keys(content).join(', ')} for ${statusKey}, not ${mediaType || 'no Content-Type'}`,
        ];
      const schema = content[mediaKey]?.schema;
      if (schema === undefined) return [];
      const validate = validatorFor(`${route.httpMethod} ${route.path} ${statusKey} ${mediaKey}`, schema);
      return validate(response.body)
        ? []
        : describe(`${request}: ${operation} ${statusKey}`, validate.errors);
    },
  };
}

/** The headers the document names for any answer: the API's own, which no answer may carry undocumented. */
function documentedHeaderNames(routes: readonly Route[]): Set<string> {
  return new Set(
    routes.flatMap((route) =>
      Object.values(route.operation.responses ?? {}).flatMap((response) =>
        Object.keys(response.headers ?? {}).map((name) => name.toLowerCase()),
      ),
    ),
  );
}

/**
 * What is wrong with an answer's headers: a required one missing, an integer one that is not a non-negative
 * integer, or one of the API's own that the status does not document.
 */
function checkHeaders(
  headers: Headers,
  documented: Record<string, DocumentedHeader>,
  apiHeaders: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  const documentedNames = new Set(Object.keys(documented).map((name) => name.toLowerCase()));
  for (const [name, header] of Object.entries(documented)) {
    const value = headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`the required header ${name} is missing`);
    } else if (header.schema?.type === 'integer' && !/^\d+$/.test(value)) {
      problems.push(`the header ${name} is not a non-negative integer: ${JSON.stringify(value)}`);
    }
  }
  for (const name of apiHeaders)
    if (!documentedNames.has(name) && headers.has(name))
      problems.push(`the header ${name} came, which this status does not document`);
  return problems;
}

function routesOf(document: OpenApiDocument): Route[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]) => ({
        httpMethod: method.toUpperCase(),
        path,
        operation: operation as DocumentedOperation,
      })),
  );
}

/** JSON Schema keywords whose value is a subschema, a list of them, or a map of them. */
const SUBSCHEMA = ['items', 'contains', 'not', 'if', 'then', 'else', 'additionalProperties', 'propertyNames'];
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs'];

/**
 * The schema as the contract checks it: its component refs point into the compiled components, and an object
 * with listed properties is closed (`unevaluatedProperties: false`), so a field the service sends but the
 * document does not list fails: a client generated from the document would never see it. The branches of an
 * `allOf` stay open (their components taken from the open copy) and the `allOf` itself is closed, so an
 * object extended by composition is checked as a whole.
 */
function prepare(schema: unknown, open = false): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const prepared: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_REF))
      prepared[keyword] =
        `${open ? OPEN_COMPONENTS_ID : COMPONENTS_ID}#/$defs/${value.slice(COMPONENT_REF.length)}`;
    else if (keyword === 'allOf')
      prepared[keyword] = (value as unknown[]).map((branch) => prepare(branch, true));
    else if (SUBSCHEMA.includes(keyword)) prepared[keyword] = prepare(value);
    else if (SUBSCHEMA_LISTS.includes(keyword))
      prepared[keyword] = (value as unknown[]).map((item) => prepare(item));
    else if (SUBSCHEMA_MAPS.includes(keyword))
      prepared[keyword] = prepareEach(value as Record<string, unknown>);
    else prepared[keyword] = value;
  }
  const describesObject = 'properties' in prepared || 'allOf' in prepared;
  if (!open && describesObject && !('additionalProperties' in prepared))
    prepared.unevaluatedProperties ??= false;
  return prepared;
}

function prepareEach(schemas: Record<string, unknown>, open = false): Record<string, unknown> {
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, prepare(schema, open)]));
}

function describe(what: string, errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (error) =>
      `${what}: body${error.instancePath} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''} (schema ${error.schemaPath})`,
  );
}
