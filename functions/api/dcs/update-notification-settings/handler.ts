import { replaceNotificationSettings } from '../../../domain/notification-settings';
import { httpHandler } from '../../http-handler';
import { dcRef } from '../../refs';
import { notificationSettingsView } from '../notification-views';
import { updateNotificationSettings as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async ({ params, body, caller }) => {
  const settings = await replaceNotificationSettings(dcRef(caller, params), {
    triggers: body.triggers,
    channels: body.channels,
    quietHours: body.quiet_hours,
    templates: body.templates.map(({ subject, ...template }) => ({
      ...template,
      ...(subject === undefined ? {} : { subject }),
    })),
  });
  return { notification_settings: notificationSettingsView(settings) };
});
