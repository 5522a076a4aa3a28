import { ok } from '../../define';
import { dcSettingsEndpoint, NotificationSettingsData } from '../schemas';

export const getNotificationSettings = /* @__PURE__ */ dcSettingsEndpoint(
  'GET /dcs/{dc_id}/notification-settings',
  {
    operationId: 'getNotificationSettings',
    module: import.meta.url,
    summary: 'Read the DC’s customer notification settings: triggers, channels, quiet hours and templates',
    responses:
      import.meta.responseSchemas !== false &&
      ok('the settings, defaults filled in', NotificationSettingsData),
  },
);
