import { notificationSettings } from '../../../domain/notification-settings';
import { httpHandler } from '../../http-handler';
import { dcRef } from '../../refs';
import { notificationSettingsView } from '../notification-views';
import { getNotificationSettings as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, caller }) => ({
  notification_settings: notificationSettingsView(await notificationSettings(dcRef(caller, params))),
}));
