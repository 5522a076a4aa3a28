import { dcSettingsEndpoint, NotificationSettingsData } from '../schemas';

export const getNotificationSettings = dcSettingsEndpoint('GET /dcs/{dc_id}/notification-settings', {
  operationId: 'getNotificationSettings',
  module: import.meta.url,
  summary: 'Read the DC’s customer notification settings: triggers, channels, quiet hours and templates',
  responses: {
    200: { description: 'the settings, defaults filled in', data: NotificationSettingsData },
  },
});
