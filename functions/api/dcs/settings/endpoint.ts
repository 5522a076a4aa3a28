import { DcSettingsData, dcSettingsEndpoint } from '../schemas';

export const getDcSettings = dcSettingsEndpoint('GET /dcs/{dc_id}/settings', {
  operationId: 'getDcSettings',
  module: import.meta.url,
  summary: 'Read the DC’s arrival detection, approach and default delivery rule settings',
  responses: { 200: { description: 'the settings, defaults filled in', data: DcSettingsData } },
});
