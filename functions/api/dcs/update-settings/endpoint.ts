import { DcParams } from '../../../models/common';
import { ok } from '../../define';
import { DcSettingsData, dcSettingsChangeEndpoint, UpdateDcSettingsBody } from '../schemas';

export const updateDcSettings = /* @__PURE__ */ dcSettingsChangeEndpoint('PATCH /dcs/{dc_id}/settings', {
  operationId: 'updateDcSettings',
  module: import.meta.url,
  summary: 'Change the DC’s arrival detection, approach and default delivery rule settings (the ones given)',
  request: { params: DcParams, body: UpdateDcSettingsBody },
  responses: import.meta.responseSchemas !== false && ok('the settings after the change', DcSettingsData),
});
