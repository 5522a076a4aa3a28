import { accountKeys } from './accounts';
import { tableName, writeTransactionParts } from './client';
import { codec } from './codec';
import { getRecord, putRecordItem } from './item-ops';
import type { TableKey } from './table-schema';

/**
 * A DC's customer notification settings (PUT /dcs/{dc_id}/notification-settings): an item of their own in the
 * account's partition, beside the DC's, so the DC item every ping reads stays small whatever the templates.
 */
export interface StoredTemplate {
  trigger: string;
  channel: string;
  locale: string;
  subject?: string;
  body: string;
}

export interface NotificationSettingsRecord {
  accountId: string;
  dcId: string;
  triggers: string[];
  channels: string[];
  /** `HH:MM` in the DC's time zone; none when absent. */
  quietHours?: { start: string; end: string };
  templates: StoredTemplate[];
  updatedAt: number;
}

const settingsKey = (accountId: string, dcId: string): TableKey => ({
  pk: accountKeys.partition(accountId),
  sk: `NOTIFICATION_SETTINGS#${dcId}`,
});

const settingsCodec = codec<NotificationSettingsRecord>({
  accountId: {},
  dcId: {},
  triggers: { absent: [] },
  channels: { absent: [] },
  quietHours: {},
  templates: { absent: [] },
  updatedAt: {},
});

export const getNotificationSettings = (
  accountId: string,
  dcId: string,
): Promise<NotificationSettingsRecord | undefined> =>
  getRecord(settingsKey(accountId, dcId), settingsCodec.fromItem);

/** Replaces the DC's settings whole; 'no_dc' when the account has no such DC. */
export async function putNotificationSettings(
  settings: NotificationSettingsRecord,
): Promise<'written' | 'no_dc'> {
  return writeTransactionParts([
    {
      items: [
        {
          ConditionCheck: {
            TableName: tableName(),
            Key: accountKeys.dc(settings.accountId, settings.dcId),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
      ],
      refusedAs: 'no_dc',
    },
    {
      items: [
        putRecordItem({
          key: settingsKey(settings.accountId, settings.dcId),
          entity: 'NOTIFICATION_SETTINGS',
          codec: settingsCodec,
          record: settings,
        }),
      ],
    },
  ]);
}
