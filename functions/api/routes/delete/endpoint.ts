import * as channels from '../../../models/channels';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { routesEndpoint } from '../schemas';

export const deleteRoute = /* @__PURE__ */ routesEndpoint('DELETE /dcs/{dc_id}/routes/{route_id}', {
  operationId: 'deleteRoute',
  module: import.meta.url,
  summary:
    'Delete a route that has not started (or has finished): it is gone at once; its rows are removed asynchronously, then its ids can be imported again',
  access: { table: 'readWrite', sendTo: [channels.deletions] },
  responses:
    import.meta.responseSchemas !== false &&
    ok('deleted: the route answers 404 from now on; its rows and ids are freed shortly after', z.object({})),
  errorCodes: [3003, 3011],
});
