import { DcParams } from '../../../models/common';
import { ok } from '../../define';
import {
  dcSettingsChangeEndpoint,
  NotificationSettingsData,
  UpdateNotificationSettingsBody,
} from '../schemas';

export const updateNotificationSettings = /* @__PURE__ */ dcSettingsChangeEndpoint(
  'PUT /dcs/{dc_id}/notification-settings',
  {
    operationId: 'updateNotificationSettings',
    module: import.meta.url,
    summary: 'Set the DC’s customer notification settings whole (an absent field takes its default)',
    request: { params: DcParams, body: UpdateNotificationSettingsBody },
    responses:
      import.meta.responseSchemas !== false && ok('the settings as stored', NotificationSettingsData),
  },
);
