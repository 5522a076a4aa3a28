import { beforeAll, describe, expect, it } from 'vitest';
import * as dcs from '../../functions/api/dcs/index';
import { type TestAccount, useTestApi } from '../support/fixtures';
import { expectError, expectSuccess } from '../support/http';

/**
 * Customer notifications (docs/api.md, Customer notifications) through the API: the DC's settings, their
 * templates' rules, and that each account sees and changes only its own DCs'.
 */

const fx = useTestApi('notifications');
let acme: TestAccount;
let globex: TestAccount;

beforeAll(async () => {
  acme = await fx.account('Acme', [{ dcId: 'dc-1' }, { dcId: 'dc-2' }]);
  // Globex has a DC with the same id as one of Acme's: DC ids are per account.
  globex = await fx.account('Globex', [{ dcId: 'dc-1' }]);
});

const path = (dcId: string) => `/dcs/${dcId}/notification-settings`;
const read = async (key: string, dcId: string) =>
  (
    expectSuccess(await fx.as(key, 'GET', path(dcId)), dcs.getNotificationSettings) as {
      notification_settings: Record<string, unknown>;
    }
  ).notification_settings;

/** Locales of their own for many templates: qaa..qtz are ISO 639's private-use codes, canonical as they are. */
const privateUseLocale = (index: number) =>
  `q${String.fromCharCode(97 + Math.floor(index / 26))}${String.fromCharCode(97 + (index % 26))}`;

const smsTemplate = (locale: string, body: string) => ({ trigger: 'LATE', channel: 'SMS', locale, body });

describe('GET /dcs/{dc_id}/notification-settings', () => {
  it('answers the defaults: no trigger on, both channels, no quiet hours, the English templates', async () => {
    const settings = await read(acme.key, 'dc-1');
    expect(settings).toMatchObject({
      triggers: [],
      channels: ['SMS', 'EMAIL'],
      quiet_hours: null,
      templates: [],
      updated_at: null,
    });
    const defaults = settings.default_templates as { channel: string; locale: string; sms: unknown }[];
    expect(defaults).toHaveLength(10);
    for (const template of defaults) {
      expect(template.locale).toBe('en');
      if (template.channel === 'SMS') expect(template.sms).toMatchObject({ segments: 1, encoding: 'GSM-7' });
      else expect(template.sms).toBeNull();
    }
  });
});

describe('PUT /dcs/{dc_id}/notification-settings', () => {
  const full = {
    triggers: ['ROUTE_STARTED', 'LATE', 'DELIVERED'],
    channels: ['SMS'],
    quiet_hours: { start: '21:30', end: '07:00' },
    templates: [
      smsTemplate('pl', '{{dc_name}}: dostawa się spóźni, nowy czas {{eta_window}}. {{ tracking_link }}'),
      {
        trigger: 'DELIVERED',
        channel: 'EMAIL',
        locale: 'pt-BR',
        subject: 'Entregue: {{stop_name}}',
        body: 'Sua entrega foi feita.\n{{tracking_link}}',
      },
    ],
  };

  it('stores the settings whole and answers them, with each SMS template’s size', async () => {
    const put = expectSuccess(
      await fx.as(acme.key, 'PUT', path('dc-2'), full),
      dcs.updateNotificationSettings,
    ) as {
      notification_settings: Record<string, unknown>;
    };
    const stored = await read(acme.key, 'dc-2');
    expect(stored).toEqual(put.notification_settings);
    expect(stored).toMatchObject({
      triggers: full.triggers,
      channels: ['SMS'],
      quiet_hours: { start: '21:30', end: '07:00' },
      templates: [
        // ę and ź have no GSM-7 code: UCS-2, 67 characters a segment when split.
        { ...full.templates[0], subject: null, sms: { segments: 2, encoding: 'UCS-2', characters: 113 } },
        { ...full.templates[1], sms: null },
      ],
    });
    expect(stored.updated_at).toEqual(expect.any(Number));
    // The other DC keeps its defaults.
    expect(await read(acme.key, 'dc-1')).toMatchObject({ triggers: [], updated_at: null });
  });

  it('gives an absent field its default: a PUT replaces the settings, it does not merge', async () => {
    await fx.as(acme.key, 'PUT', path('dc-2'), full);
    const answer = expectSuccess(
      await fx.as(acme.key, 'PUT', path('dc-2'), { triggers: ['APPROACHING'] }),
      dcs.updateNotificationSettings,
    );
    expect(answer).toMatchObject({
      notification_settings: {
        triggers: ['APPROACHING'],
        channels: ['SMS', 'EMAIL'],
        quiet_hours: null,
        templates: [],
      },
    });
  });

  it('refuses bad settings with 1006 naming the field, and stores nothing of them', async () => {
    const before = await read(acme.key, 'dc-1');
    const email = {
      trigger: 'FAILED',
      channel: 'EMAIL',
      locale: 'en',
      subject: 'Sorry',
      body: '{{tracking_link}}',
    };
    const cases: [unknown, string][] = [
      [{ triggers: ['ARRIVED'] }, 'triggers.0'],
      [{ triggers: ['LATE', 'LATE'] }, 'triggers'],
      [{ channels: [] }, 'channels'],
      [{ channels: ['FAX'] }, 'channels.0'],
      [{ quiet_hours: { start: '24:00', end: '07:00' } }, 'quiet_hours.start'],
      [{ quiet_hours: { start: '7:00', end: '08:00' } }, 'quiet_hours.start'],
      [{ quiet_hours: { start: '07:00', end: '07:00' } }, 'quiet_hours.end'],
      [{ templates: [smsTemplate('en', 'Hi {{name}} {{tracking_link}}')] }, 'templates.0.body'],
      [{ templates: [smsTemplate('en', '{{#if x}}{{tracking_link}}{{/if}}')] }, 'templates.0.body'],
      [{ templates: [smsTemplate('en', 'Coming soon from {{dc_name}}')] }, 'templates.0.body'],
      [{ templates: [smsTemplate('en', `${'a'.repeat(630)} {{tracking_link}}`)] }, 'templates.0.body'],
      [{ templates: [{ ...smsTemplate('en', '{{tracking_link}}'), subject: 'Hi' }] }, 'templates.0.subject'],
      [{ templates: [{ ...email, subject: undefined }] }, 'templates.0.subject'],
      [{ templates: [{ ...email, subject: 'For {{customer}}' }] }, 'templates.0.subject'],
      [{ templates: [smsTemplate('pt-br', '{{tracking_link}}')] }, 'templates.0.locale'],
      [{ templates: [smsTemplate('english', '{{tracking_link}}')] }, 'templates.0.locale'],
      [{ templates: [email, { ...email, body: 'again {{tracking_link}}' }] }, 'templates.1.locale'],
      [
        { templates: Array.from({ length: 51 }, (_, i) => ({ ...email, locale: privateUseLocale(i) })) },
        'templates',
      ],
      // 21 emails of 4,900 three-byte characters: each within its limit, all of them past 300,000 bytes.
      [
        {
          templates: Array.from({ length: 21 }, (_, i) => ({
            ...email,
            locale: privateUseLocale(i),
            body: `${'€'.repeat(4900)} {{tracking_link}}`,
          })),
        },
        'templates',
      ],
    ];
    for (const [body, field] of cases) {
      const message = expectError(await fx.as(acme.key, 'PUT', path('dc-1'), body), 400, 1006);
      expect(message.startsWith(`${field}:`), `${JSON.stringify(body).slice(0, 80)}: ${message}`).toBe(true);
    }
    expect(await read(acme.key, 'dc-1')).toEqual(before);
  });
});

describe('notification settings and tenancy', () => {
  it('answers 403 for another account’s DC, 401 without a key; a DC id of two accounts is two DCs', async () => {
    await fx.as(acme.key, 'PUT', path('dc-1'), { triggers: ['DELIVERED'] });
    expectError(await fx.as(globex.key, 'GET', path('dc-2')), 403, 1002);
    expectError(await fx.as(globex.key, 'PUT', path('dc-2'), { triggers: ['LATE'] }), 403, 1002);
    expect((await fx.request('GET', path('dc-1'), {})).status).toBe(401);
    expect((await fx.request('PUT', path('dc-1'), { body: { triggers: [] } })).status).toBe(401);
    // Globex's dc-1 is its own: Acme's settings are neither read nor changed through it.
    expect(await read(globex.key, 'dc-1')).toMatchObject({ triggers: [], updated_at: null });
    expectSuccess(
      await fx.as(globex.key, 'PUT', path('dc-1'), { triggers: ['LATE'] }),
      dcs.updateNotificationSettings,
    );
    expect(await read(acme.key, 'dc-1')).toMatchObject({ triggers: ['DELIVERED'] });
  });
});
