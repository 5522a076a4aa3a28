import { DcParams } from '../../../models/common';
import {
  dcSettingsChangeEndpoint,
  NotificationSettingsData,
  UpdateNotificationSettingsBody,
} from '../schemas';

export const updateNotificationSettings = dcSettingsChangeEndpoint('PUT /dcs/{dc_id}/notification-settings', {
  operationId: 'updateNotificationSettings',
  module: import.meta.url,
  summary: 'Set the DC’s customer notification settings whole (an absent field takes its default)',
  request: { params: DcParams, body: UpdateNotificationSettingsBody },
  responses: { 200: { description: 'the settings as stored', data: NotificationSettingsData } },
});
