import * as analytics from './analytics/index';
import * as dcs from './dcs/index';
import type { EndpointDefinition, HttpMethod } from './define';
import { isEndpointDefinition } from './define';
import * as docs from './docs/index';
import * as driverApp from './driver-app/index';
import * as drivers from './drivers/index';
import * as events from './events/index';
import * as routes from './routes/index';
import * as tracking from './tracking/index';
import * as webhooks from './webhooks/index';

/** The groups of endpoints, in the order the document and the docs present them. */
const GROUPS = [dcs, drivers, routes, driverApp, webhooks, events, analytics, tracking, docs];

const METHOD_ORDER: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const byPathThenMethod = (a: EndpointDefinition, b: EndpointDefinition) =>
  a.path === b.path
    ? METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method)
    : a.path < b.path
      ? -1
      : 1;

/**
 * The endpoint list: CDK, the local server, the OpenAPI document and the coverage test all read it. An
 * endpoint is registered by its slice alone (`functions/api/<group>/<name>/endpoint.ts`, exported by the
 * group's `index.ts`): every endpoint definition a group exports is on the list, in path order within the
 * group. The slice's `handler.ts` is the endpoint's Lambda; endpoints of one slice share that Lambda.
 */
export const endpoints: readonly EndpointDefinition[] = GROUPS.flatMap((group) =>
  [...new Set(Object.values(group).filter(isEndpointDefinition))].sort(byPathThenMethod),
);
