import { alsoAs, defineEndpoint } from '../../define';
import { changeRoute, OptionalTimestampBody, RouteParams } from '../schemas';

export const startRoute = defineEndpoint({
  ...changeRoute(
    import.meta.url,
    'startRoute',
    'start',

    'Start an active route that has a driver (as its driver would); ROUTE_STARTED',
  ),
  request: { params: RouteParams, body: OptionalTimestampBody },
  errorCodes: [3003, 3010, 3011, 3012],
});

/** The same endpoint under PUT (one Lambda). */
export const startRoutePut = alsoAs(startRoute, 'PUT');
