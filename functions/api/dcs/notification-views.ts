import { DEFAULT_TEMPLATES, render, SAMPLE_VALUES, smsSize } from '../../domain/message-templates';
import type { NotificationSettings } from '../../domain/notification-settings';
import type { MessageTemplate } from '../../models/notification-templates';

/** Apart from views.ts: only the notification settings' functions bundle the SMS segment counter. */
const templateView = (template: MessageTemplate) => ({
  trigger: template.trigger,
  channel: template.channel,
  locale: template.locale,
  subject: template.subject ?? null,
  body: template.body,
  sms: template.channel === 'SMS' ? smsSize(render(template.body, SAMPLE_VALUES)) : null,
});

/** The NotificationSettings resource: the DC's own, and the English defaults beside them. */
export const notificationSettingsView = (settings: NotificationSettings) => ({
  triggers: settings.triggers,
  channels: settings.channels,
  quiet_hours: settings.quietHours,
  templates: settings.templates.map(templateView),
  default_templates: DEFAULT_TEMPLATES.map(templateView),
  updated_at: settings.updatedAt,
});
