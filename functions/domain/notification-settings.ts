import { getDc } from '../data/accounts';
import { getNotificationSettings, putNotificationSettings } from '../data/notification-settings';
import {
  type MessageTemplate,
  NOTIFICATION_CHANNELS,
  type NotificationChannel,
  type NotificationTrigger,
} from '../models/notification-templates';
import { NotFoundError } from '../shared/errors';
import { quote } from '../shared/quote';

/**
 * A DC's customer notification settings (docs/api.md, Customer notifications), defaults filled in: no
 * trigger on (nothing is sent until the DC turns one on), both channels, no quiet hours, no templates of
 * its own (the English defaults).
 */
export interface NotificationSettings {
  triggers: NotificationTrigger[];
  channels: NotificationChannel[];
  quietHours: { start: string; end: string } | null;
  templates: MessageTemplate[];
  updatedAt: number | null;
}

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  triggers: [],
  channels: [...NOTIFICATION_CHANNELS],
  quietHours: null,
  templates: [],
  updatedAt: null,
};

const dcNotFound = (dcId: string) => new NotFoundError(`dc ${quote(dcId)} not found`);

/** The DC's notification settings; 404 when the account has no such DC. */
export async function notificationSettings(ref: {
  accountId: string;
  dcId: string;
}): Promise<NotificationSettings> {
  const [dc, stored] = await Promise.all([
    getDc(ref.accountId, ref.dcId),
    getNotificationSettings(ref.accountId, ref.dcId),
  ]);
  if (!dc) throw dcNotFound(ref.dcId);
  if (!stored) return DEFAULT_NOTIFICATION_SETTINGS;
  return {
    triggers: stored.triggers as NotificationTrigger[],
    channels: stored.channels as NotificationChannel[],
    quietHours: stored.quietHours ?? null,
    templates: stored.templates as MessageTemplate[],
    updatedAt: stored.updatedAt,
  };
}

/** Replaces the DC's settings with `settings` (validated by the endpoint's schema); answers them. */
export async function replaceNotificationSettings(
  ref: { accountId: string; dcId: string },
  settings: Omit<NotificationSettings, 'updatedAt'>,
  now = Date.now(),
): Promise<NotificationSettings> {
  const outcome = await putNotificationSettings({
    accountId: ref.accountId,
    dcId: ref.dcId,
    triggers: settings.triggers,
    channels: settings.channels,
    ...(settings.quietHours ? { quietHours: settings.quietHours } : {}),
    templates: settings.templates,
    updatedAt: now,
  });
  if (outcome === 'no_dc') throw dcNotFound(ref.dcId);
  return { ...settings, updatedAt: now };
}
