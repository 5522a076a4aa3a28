import { Id } from '../../../models/common';
import { PROOF_LIMITS } from '../../../shared/limits';
import { PROOFS_PREFIX } from '../../../shared/resources';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { Proof } from '../proof-schemas';
import { RouteParams, routesEndpoint } from '../schemas';

export const listWaypointProofs = /* @__PURE__ */ routesEndpoint(
  'GET /dcs/{dc_id}/routes/{route_id}/waypoints/{waypoint_id}/proofs',
  {
    operationId: 'listWaypointProofs',
    module: import.meta.url,
    summary: 'The proofs of delivery (photos, signatures) of a waypoint, with short-lived download links',
    description: `Every proof the driver asked to upload, in the order asked, whatever its status, until the bucket's retention (proofRetentionDays) expires its file; only AVAILABLE ones have a download_link, which works for ${PROOF_LIMITS.downloadLinkSeconds / 60} minutes (read the list again for fresh links).`,
    access: { table: 'read', signLinks: { access: 'read', keyPrefix: PROOFS_PREFIX } },
    request: { params: /* @__PURE__ */ z.extend(RouteParams, { waypoint_id: Id }) },
    responses:
      import.meta.responseSchemas !== false &&
      ok('the waypoint’s proofs', z.object({ proofs: /* @__PURE__ */ z.array(Proof) })),
    errorCodes: [3003, 3013],
  },
);
