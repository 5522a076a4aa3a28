import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { Dc, dcsEndpoint } from '../schemas';

export const listDcs = /* @__PURE__ */ dcsEndpoint('GET /dcs', {
  operationId: 'listDcs',
  module: import.meta.url,
  summary: 'List the DCs of the API key’s account',
  responses:
    import.meta.responseSchemas !== false &&
    ok('the account’s DCs', z.object({ dcs: /* @__PURE__ */ z.array(Dc) })),
});
