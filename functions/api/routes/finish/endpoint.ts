import { alsoAs, defineEndpoint } from '../../define';
import { changeRoute, OptionalTimestampBody, RouteParams } from '../schemas';

export const finishRoute = defineEndpoint({
  ...changeRoute(
    import.meta.url,
    'finishRoute',
    'finish',

    'Finish an active or started route; ROUTE_FINISHED',
  ),
  request: { params: RouteParams, body: OptionalTimestampBody },
});

/** The same endpoint under PUT (one Lambda). */
export const finishRoutePut = alsoAs(finishRoute, 'PUT');
