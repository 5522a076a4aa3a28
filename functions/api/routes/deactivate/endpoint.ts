import { alsoAs } from '../../define';
import { changeRoute } from '../schemas';

export const deactivateRoute = changeRoute(
  import.meta.url,
  'deactivateRoute',
  'deactivate',

  'Deactivate a route that has not started',
);

/** The same endpoint under PUT (one Lambda). */
export const deactivateRoutePut = alsoAs(deactivateRoute, 'PUT');
