/**
 * The rules of customer message templates (docs/api.md, Customer notifications), which the settings' schema
 * checks and the messages' rendering (functions/domain/message-templates.ts) follows: a fixed set of
 * placeholders, `{{name}}`, and nothing else. No template language: a tenant's template is text with holes,
 * never code.
 */

export const NOTIFICATION_TRIGGERS = ['ROUTE_STARTED', 'APPROACHING', 'LATE', 'DELIVERED', 'FAILED'] as const;
export type NotificationTrigger = (typeof NOTIFICATION_TRIGGERS)[number];

export const NOTIFICATION_CHANNELS = ['SMS', 'EMAIL'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/** What a template may name, and what each stands for. */
export const PLACEHOLDERS = {
  stop_name: 'the stop’s name',
  eta_window: 'the ETA window in the DC’s time zone, as the tracking page shows it (14:05-14:35)',
  driver_first_name: 'the driver’s first name',
  tracking_link: 'the stop’s tracking link (every template body must have it)',
  dc_name: 'the DC’s name',
  reason: 'why the delivery failed (FAILED; empty otherwise)',
} as const;
export type Placeholder = keyof typeof PLACEHOLDERS;

/** Templates per DC, and the characters of a template's parts. */
export const TEMPLATE_LIMITS = {
  templates: 50,
  smsBody: 640,
  emailSubject: 200,
  emailBody: 5000,
  locale: 35,
  /** Of all a DC's bodies and subjects as UTF-8: the settings are one item, and DynamoDB's hold 400 KB. */
  totalBytes: 300_000,
} as const;

export interface MessageTemplate {
  trigger: NotificationTrigger;
  channel: NotificationChannel;
  /** A canonical BCP 47 tag (`en`, `de-AT`). */
  locale: string;
  /** EMAIL only. */
  subject?: string;
  body: string;
}

/** `{{ name }}`: a placeholder, spaces inside the braces allowed. */
export const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/gu;

/** What is wrong with a template text, or undefined: an unknown placeholder, or a `{{`/`}}` left unpaired. */
export function templateProblem(text: string, { needsLink }: { needsLink: boolean }): string | undefined {
  const names = [...text.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
  const unknown = names.find((name) => !Object.hasOwn(PLACEHOLDERS, name));
  if (unknown !== undefined)
    return `names {{${unknown.slice(0, 40)}}}, which is no placeholder; the placeholders are ${Object.keys(PLACEHOLDERS).join(', ')}`;
  const rest = text.replace(PLACEHOLDER, '');
  if (rest.includes('{{') || rest.includes('}}')) return 'has a {{ or }} that is not part of a placeholder';
  if (needsLink && !names.includes('tracking_link')) return 'must contain {{tracking_link}}';
  return undefined;
}

/**
 * The locale as its canonical BCP 47 tag, or undefined when it is none or its language is no ISO 639 code
 * (BCP 47's syntax also takes 5 to 8 letters there, so `english` would pass it).
 */
export function canonicalLocale(locale: string): string | undefined {
  try {
    const canonical = Intl.getCanonicalLocales(locale)[0];
    return canonical && new Intl.Locale(canonical).language.length <= 3 ? canonical : undefined;
  } catch {
    return undefined;
  }
}
