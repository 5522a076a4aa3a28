import { analyticsEndpoints } from './analytics';
import { dcEndpoints } from './dcs';
import type { EndpointDefinition } from './define';
import { docsEndpoints } from './docs';
import { driverAppEndpoints } from './driver-app';
import { driverEndpoints } from './drivers';
import { routeEndpoints } from './routes';
import { webhookEndpoints } from './webhooks';

/** The endpoint list: CDK, the local server, the OpenAPI document and the coverage test all read it. */
export const endpoints: readonly EndpointDefinition[] = [
  ...dcEndpoints,
  ...driverEndpoints,
  ...routeEndpoints,
  ...driverAppEndpoints,
  ...webhookEndpoints,
  ...analyticsEndpoints,
  ...docsEndpoints,
];
