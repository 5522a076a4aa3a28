import { defineEndpoint } from '../../define';
import { changeRoute } from '../schemas';

export const unassignDriver = defineEndpoint({
  ...changeRoute(
    import.meta.url,
    'unassignDriver',
    'driver-assignment',

    'Remove the driver from a route that has not started',
  ),
  method: 'DELETE',
});
