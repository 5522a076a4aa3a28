import { SegmentedMessage } from 'sms-segments-calculator';
import {
  type MessageTemplate,
  type NotificationChannel,
  type NotificationTrigger,
  PLACEHOLDER,
  PLACEHOLDERS,
  type Placeholder,
} from '../models/notification-templates';

/**
 * Customer messages rendered from their templates (rules: functions/models/notification-templates.ts). Each
 * placeholder is replaced by its value as plain text in one pass, so a value that looks like a placeholder
 * (a stop named `{{dc_name}}`) stays as it is and nothing of a tenant's template runs.
 */

export type PlaceholderValues = Record<Placeholder, string>;

/** The values the settings' SMS sizes are counted with: a stop and DC of ordinary length. */
export const SAMPLE_VALUES: PlaceholderValues = {
  stop_name: 'Corner Shop Main Street',
  eta_window: '14:05-14:35',
  driver_first_name: 'Dana',
  tracking_link: 'https://api.example.com/v1/track/AbCdEfGhIjKlMnOpQrStUv',
  dc_name: 'Chicago North',
  reason: 'closed',
};

/** The text with each placeholder replaced by its value. */
export function render(text: string, values: PlaceholderValues): string {
  return text.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(PLACEHOLDERS, name) ? values[name as Placeholder] : whole,
  );
}

export interface SmsSize {
  segments: number;
  encoding: 'GSM-7' | 'UCS-2';
  characters: number;
}

/**
 * How many SMS segments the text takes: GSM-7 (160 characters alone, 153 a segment when split) where every
 * character has one, UCS-2 (70, 67) otherwise; counted by Twilio's sms-segments-calculator.
 */
export function smsSize(text: string): SmsSize {
  const message = new SegmentedMessage(text, 'auto');
  return {
    segments: message.segmentsCount,
    encoding: message.getEncodingName() === 'GSM-7' ? 'GSM-7' : 'UCS-2',
    characters: message.numberOfCharacters,
  };
}

const english = (
  trigger: NotificationTrigger,
  sms: string,
  email: { subject: string; body: string },
): MessageTemplate[] => [
  { trigger, channel: 'SMS', locale: 'en', body: sms },
  { trigger, channel: 'EMAIL', locale: 'en', ...email },
];

/**
 * The English defaults, each SMS one GSM-7 segment with the sample values (test/unit/message-templates.test.ts).
 * Plain ASCII on purpose: one typographic apostrophe makes an SMS UCS-2, 70 characters a segment.
 */
export const DEFAULT_TEMPLATES: readonly MessageTemplate[] = [
  ...english(
    'ROUTE_STARTED',
    '{{dc_name}}: your delivery is on its way, expected {{eta_window}}. {{tracking_link}}',
    {
      subject: 'Your delivery from {{dc_name}} is on its way',
      body: 'Your delivery to {{stop_name}} is on its way, expected {{eta_window}}.\n\nFollow it: {{tracking_link}}',
    },
  ),
  ...english('APPROACHING', '{{dc_name}}: {{driver_first_name}} is nearly with you. {{tracking_link}}', {
    subject: '{{driver_first_name}} is nearly with you',
    body: '{{driver_first_name}} from {{dc_name}} is nearly at {{stop_name}}.\n\nFollow it: {{tracking_link}}',
  }),
  ...english('LATE', '{{dc_name}}: your delivery runs late, now expected {{eta_window}}. {{tracking_link}}', {
    subject: 'Your delivery from {{dc_name}} runs late',
    body: 'Your delivery to {{stop_name}} runs late; it is now expected {{eta_window}}.\n\nFollow it: {{tracking_link}}',
  }),
  ...english('DELIVERED', '{{dc_name}}: your delivery to {{stop_name}} was made. {{tracking_link}}', {
    subject: 'Delivered: your delivery from {{dc_name}}',
    body: 'Your delivery to {{stop_name}} was made.\n\nDetails: {{tracking_link}}',
  }),
  ...english('FAILED', '{{dc_name}}: we could not deliver to {{stop_name}} ({{reason}}). {{tracking_link}}', {
    subject: 'We could not deliver your order from {{dc_name}}',
    body: 'We could not deliver to {{stop_name}}: {{reason}}.\n\nDetails: {{tracking_link}}',
  }),
];

/**
 * The template a message in `locale` uses: the DC's own for the locale, else for its language alone
 * (`de-AT` falls back to `de`), else the DC's English one, else the default English one.
 */
export function templateFor(
  own: readonly MessageTemplate[],
  trigger: NotificationTrigger,
  channel: NotificationChannel,
  locale: string,
): MessageTemplate {
  const language = locale.split('-')[0] ?? locale;
  const of = (templates: readonly MessageTemplate[], wanted: string) =>
    templates.find((t) => t.trigger === trigger && t.channel === channel && t.locale === wanted);
  const found = of(own, locale) ?? of(own, language) ?? of(own, 'en') ?? of(DEFAULT_TEMPLATES, 'en');
  if (!found) throw new Error(`no default template for ${trigger} ${channel}`);
  return found;
}
