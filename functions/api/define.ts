import type { ResourceAccess } from '../shared/access';
import { httpStatusOfCode } from '../shared/error-codes';
import type * as z from '../shared/zod';

declare global {
  interface ImportMeta {
    /**
     * Whether the bundle keeps the endpoints' response schemas: esbuild's `define` makes it `false` in every
     * function but the OpenAPI document's (lib/bundling.ts, RESPONSE_SCHEMAS_CONSTANT), undefined where the code
     * runs unbundled. Each endpoint states its `responses` (and its GeoJSON schema) as
     * `import.meta.responseSchemas !== false && …`: esbuild folds the condition while it parses, so the
     * schemas only the answer uses are neither in the bundle nor built at its cold start.
     */
    readonly responseSchemas?: boolean;
  }
}

/** Response schemas, or false in a bundle that leaves them out (`import.meta.responseSchemas`): nothing reads them there. */
export type Bundled<T> = T | false;

/** The answers of most endpoints: a 200 whose envelope's `data` has this schema. */
export function ok<const D extends z.ZodMiniType>(description: string, data: D) {
  return { 200: { description, data } };
}

/** Response schemas where they must be there: in the OpenAPI document's bundle, and unbundled (tests, tools). */
export function bundled<T>(schemas: Bundled<T>): T {
  if (schemas === false)
    throw new Error('response schemas are left out of this bundle (import.meta.responseSchemas)');
  return schemas;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Who may call an endpoint: an account's API key, a driver's login token, or anyone. */
export type AuthKind = 'apiKey' | 'driverToken' | 'none';

/**
 * One endpoint of the endpoint list. The same object drives the API Gateway method and Lambda in CDK, the
 * local HTTP server, the OpenAPI document and the handler's own input validation.
 */
export interface EndpointDefinition {
  /** OpenAPI operationId; unique. */
  operationId: string;
  method: HttpMethod;
  /** API Gateway / OpenAPI path template, e.g. `/dcs/{dc_id}/drivers`. */
  path: string;
  auth: AuthKind;
  /**
   * The URL of the module that defines the endpoint (its `import.meta.url`): its slice is that module's
   * folder, whose `handler.ts` is the Lambda (lib/slices.ts). Endpoints in one slice share one Lambda.
   */
  module: string;
  summary: string;
  /** What the summary leaves out (how a paged list cuts its rows), for the OpenAPI operation. */
  description?: string;
  tag: string;
  access: ResourceAccess;
  request: {
    params?: z.ZodMiniObject;
    query?: z.ZodMiniObject;
    body?: z.ZodMiniType;
    /** The media types the body may come in, for a body that is not JSON (an HTML form's). */
    bodyMediaTypes?: readonly string[];
  };
  /**
   * Success responses by HTTP status; `data` is the schema of the envelope's `data`. `contentTypes`, for
   * endpoints that skip the envelope, lists the media types the body may have (default application/json).
   * The answers without a body (a redirect, a revalidated file) give only their description.
   */
  responses: Bundled<
    Partial<
      Record<200 | 202, { description: string; data: z.ZodMiniType; contentTypes?: readonly string[] }> &
        Record<302 | 304, { description: string }>
    >
  >;
  /** Error codes (beyond the generic ones every endpoint may answer) this endpoint can return. */
  errorCodes: number[];
  /**
   * The status this endpoint answers a code with where it is not the code's usual one: the spec's 3003 is 400
   * on the invoice status and accounting reads. The one place a status is chosen other than by the code.
   */
  errorStatuses?: Readonly<Record<number, number>>;
  /** Documents served as they are (the OpenAPI document) skip the envelope. */
  envelope?: false;
  /**
   * An HTML page for people instead of the JSON answer, to a client that prefers `text/html` (its Accept
   * header; JSON otherwise): the description of the page. The OpenAPI document lists `text/html` beside
   * `application/json` for the success and for the endpoint's own error statuses.
   */
  htmlPage?: string;
  /**
   * An RFC 7946 GeoJSON answer instead of the JSON envelope, to a client that prefers `application/geo+json`
   * (its Accept header): its description and schema. The handler answers it as a `GeoJsonAnswer`.
   */
  geoJson?: { description: string; schema: Bundled<z.ZodMiniType> };
  /**
   * 'write' for a driver-token endpoint whose write is conditional on the driver item still holding the
   * token: its token lookup may then come from the process's short cache (functions/domain/driver-auth).
   */
  driverTokenVerifiedBy?: 'write';
  /**
   * The answer or the events of this endpoint link to the API itself (waypoints' tracking pages): CDK gives its
   * Lambda API_URL, the API's base URL (the stage's, or the `apiUrl` of the deployment's context).
   */
  linksToApi?: true;
  /**
   * Files copied beside the bundle, under `node_modules/`, for handlers that read them at run time (rather
   * than importing them into the bundle): package-relative paths such as `swagger-ui-dist/swagger-ui.css`.
   * The handler finds them the same way locally and on Lambda, by resolving from its own module
   * (`createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')`), so list the package's
   * `package.json` too when it resolves through it.
   */
  bundledFiles?: readonly string[];
  /**
   * This method's own limit. On an `apiKey` endpoint, each account's own limit, below its rate on the other
   * methods: for endpoints whose every call is expensive (an import writes up to 100,000 items), so that one
   * account cannot spend the table's capacity; a per-method throttle of the accounts' usage plan, with a
   * ceiling for all accounts together well above it on the stage (lib/api-stack.ts, METHOD_CEILING_ACCOUNTS).
   * On a public endpoint (`none`), which names no account, the limit for all its callers together: a method
   * throttle of the stage. Driver-token endpoints have none (no usage key to hold it per account).
   */
  throttling?: MethodThrottling;
}

export interface MethodThrottling {
  /** Steady-state requests per second of one account (of all callers, on a public method). */
  rateLimit: number;
  /** Requests one account (all callers, on a public method) may send at once: the token bucket's size. */
  burstLimit: number;
}

/** An endpoint's method and path template in one string, as the spec writes it: `'GET /dcs/{dc_id}/drivers'`. */
export type MethodAndPath<M extends HttpMethod = HttpMethod> = `${M} /${string}`;

/** What a group's endpoints can share: anything but what makes an endpoint itself. */
type Shared = Partial<Omit<EndpointDefinition, 'operationId' | 'method' | 'path' | 'module' | 'summary'>>;

/**
 * Every group's endpoints are an account's (its API key), only read the table, take no parameters and have no
 * error codes of their own, unless the group says otherwise.
 */
const GROUP_DEFAULTS = {
  auth: 'apiKey',
  access: { table: 'read' },
  request: {},
  errorCodes: [] as number[],
} as const satisfies Shared;

type GroupShared<S extends Shared> = Omit<typeof GROUP_DEFAULTS, keyof S> & S;

/** What an endpoint of a group states: all that its group does not give, and what it gives where the endpoint differs. */
type EndpointFields<G> = Omit<EndpointDefinition, 'method' | 'path' | keyof G> &
  Partial<Pick<EndpointDefinition, keyof G & keyof EndpointDefinition>>;

/**
 * The endpoint builder of a group. `shared` holds what the group's endpoints have in common (its tag,
 * the params of the resource its paths name and the code for when that is missing; an API key and read
 * access unless it says otherwise); each endpoint gives its method and path, then its own fields. A field the
 * endpoint states replaces the group's whole (an endpoint's `request` is its whole request).
 *
 * ```ts
 * export const driversEndpoint = endpointGroup({ tag: 'Drivers', request: { params: DriverParams }, errorCodes: [1003] });
 *
 * export const getDriver = driversEndpoint('GET /dcs/{dc_id}/drivers/{driver_id}', {
 *   operationId: 'getDriver',
 *   module: import.meta.url,
 *   summary: 'Read a driver',
 *   responses: import.meta.responseSchemas !== false && ok('the driver', DriverData),
 * });
 * ```
 */
export function endpointGroup<const S extends Shared>(shared: S) {
  const group = { ...GROUP_DEFAULTS, ...shared } as GroupShared<S>;
  return <const M extends HttpMethod, const R extends EndpointFields<GroupShared<S>>>(
    methodAndPath: MethodAndPath<M>,
    fields: R,
  ) => {
    const [method, path] = methodAndPath.split(' ') as [M, string];
    return { method, path, ...group, ...fields } as { method: M; path: string } & Omit<
      GroupShared<S>,
      keyof R
    > &
      R;
  };
}

/** The same endpoint under another method (the spec accepts PATCH and PUT alike for some updates). */
export function alsoAs<const E extends EndpointDefinition, const M extends HttpMethod>(
  endpoint: E,
  method: M,
): Omit<E, 'method' | 'operationId'> & { method: M; operationId: string } {
  return {
    ...endpoint,
    method,
    operationId: `${endpoint.operationId}${method[0]}${method.slice(1).toLowerCase()}`,
  };
}

/** True for an endpoint definition among a group's exports (its schemas and constants are the others). */
export function isEndpointDefinition(value: unknown): value is EndpointDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const { operationId, method, path, module } = value as Partial<EndpointDefinition>;
  return [operationId, method, path, module].every((field) => typeof field === 'string');
}

/** True when the path is scoped to a DC, so the caller's account must own `{dc_id}`. */
export function isDcScoped(endpoint: Pick<EndpointDefinition, 'path'>): boolean {
  return endpoint.path.includes('{dc_id}');
}

/** The methods that change something: each takes an Idempotency-Key (functions/api/idempotency-key.ts). */
const WRITE_METHODS: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** True when the endpoint takes an Idempotency-Key: every write of a caller with credentials. */
export function takesIdempotencyKey(endpoint: Pick<EndpointDefinition, 'method' | 'auth'>): boolean {
  return WRITE_METHODS.has(endpoint.method) && endpoint.auth !== 'none';
}

/** The status the endpoint answers an error with: its code's, unless the endpoint says otherwise. */
export function httpStatusOf(endpoint: EndpointDefinition, error: { code: number }): number {
  return endpoint.errorStatuses?.[error.code] ?? httpStatusOfCode(error.code);
}
