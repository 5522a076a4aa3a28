import { ok } from '../../define';
import { DcSettingsData, dcSettingsEndpoint } from '../schemas';

export const getDcSettings = /* @__PURE__ */ dcSettingsEndpoint('GET /dcs/{dc_id}/settings', {
  operationId: 'getDcSettings',
  module: import.meta.url,
  summary: 'Read the DC’s arrival detection, approach and default delivery rule settings',
  responses: import.meta.responseSchemas !== false && ok('the settings, defaults filled in', DcSettingsData),
});
