import { alsoAs } from '../../define';
import { changeRoute } from '../schemas';

export const activateRoute = changeRoute(
  import.meta.url,
  'activateRoute',
  'activate',

  'Activate a route (it shows among its driver’s active routes)',
);

/** The same endpoint under PUT (one Lambda). */
export const activateRoutePut = alsoAs(activateRoute, 'PUT');
