import { characterCount, DcParams, EpochMillis, FreeText, Label } from '../../models/common';
import { AppliedRequirements, DeliveryRequirements } from '../../models/delivery-requirements';
import {
  canonicalLocale,
  NOTIFICATION_CHANNELS,
  NOTIFICATION_TRIGGERS,
  PLACEHOLDERS,
  TEMPLATE_LIMITS,
  templateProblem,
} from '../../models/notification-templates';
import * as z from '../../shared/zod';
import { endpointGroup } from '../define';

export const Dc = z.withMeta(
  z.object({
    id: z.string(),
    name: z.string(),
    time_zone: z.withMeta(z.string(), { description: 'IANA time zone' }),
  }),
  { id: 'Dc' },
);

/** The DC rows: an API key's and read-only. */
export const dcsEndpoint = endpointGroup({ tag: 'DCs' });

const meters = (min: number, max: number) => z.int().check(z.minimum(min), z.maximum(max));

/** The settings' rules: a radius GPS error (±25 m) cannot cross, a dwell a pass-by cannot reach. */
const SETTING_FIELDS = {
  arrival_detection: z.withMeta(z.boolean(), {
    description: 'whether arrivals and departures are detected from the driver app’s pings (default true)',
  }),
  arrival_radius_meters: z.withMeta(meters(25, 1000), {
    description: 'a stop is arrived at once the driver stays this close to it (default 100)',
  }),
  arrival_dwell_seconds: z.withMeta(z.int().check(z.minimum(10), z.maximum(1800)), {
    description: 'for this long (default 60)',
  }),
  departure_margin_meters: z.withMeta(meters(10, 1000), {
    description: 'and left once farther than the radius plus this (default 50)',
  }),
  approaching_minutes: z.withMeta(z.int().check(z.minimum(1), z.maximum(120)), {
    description: 'WAYPOINT_APPROACHING goes out once a stop’s ETA is this close (default 10)',
  }),
};

export const DcSettings = z.withMeta(
  z.object({
    ...SETTING_FIELDS,
    delivery_requirements: z.withMeta(AppliedRequirements, {
      description:
        'the default delivery rules of the DC’s stops (docs/api.md, Delivery rules): a route takes them when it is imported or revised, and each rule a waypoint states wins (default: none)',
    }),
  }),
  {
    id: 'DcSettings',
    description:
      'arrival detection, approach and delivery rule settings of the DC, defaults filled in (docs/api.md, Arrivals and departures; Delivery rules)',
  },
);

export const UpdateDcSettingsBody = z.withMeta(
  z
    .object({
      arrival_detection: z.optional(SETTING_FIELDS.arrival_detection),
      arrival_radius_meters: z.optional(SETTING_FIELDS.arrival_radius_meters),
      arrival_dwell_seconds: z.optional(SETTING_FIELDS.arrival_dwell_seconds),
      departure_margin_meters: z.optional(SETTING_FIELDS.departure_margin_meters),
      approaching_minutes: z.optional(SETTING_FIELDS.approaching_minutes),
      delivery_requirements: z.withMeta(z.optional(DeliveryRequirements), {
        description: 'the DC’s default delivery rules, replacing the ones before: a rule left out is off',
      }),
    })
    .check(
      z.refine((body) => Object.values(body).some((value) => value !== undefined), {
        path: ['arrival_radius_meters'],
        message: 'give at least one setting',
      }),
    ),
  { id: 'UpdateDcSettingsRequest', description: 'the settings to change; the others keep their values' },
);

export const DcSettingsData = z.object({ settings: DcSettings });

/** The settings of one DC: its params. */
export const dcSettingsEndpoint = endpointGroup({
  tag: 'DCs',
  request: { params: DcParams },
  errorCodes: [1003],
});
export const dcSettingsChangeEndpoint = endpointGroup({
  tag: 'DCs',
  request: { params: DcParams },
  errorCodes: [1003],
  access: { table: 'readWrite' },
});

const HourMinute = z.withMeta(
  z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/u, { message: 'must be HH:MM, 00:00..23:59' })),
  { description: 'HH:MM in the DC’s time zone', example: '21:00' },
);

const QuietHours = z.withMeta(
  z
    .object({ start: HourMinute, end: HourMinute })
    .check(
      z.refine((hours) => hours.start !== hours.end, { path: ['end'], message: 'must differ from start' }),
    ),
  {
    id: 'QuietHours',
    description:
      'from `start` to `end` (past midnight when `end` comes first) in the DC’s time zone no message is sent; one due then is dropped, not held',
  },
);

const noRepeats = <T extends string>(what: string) =>
  z.refine<T[]>((values) => new Set(values).size === values.length, { message: `lists a ${what} twice` });

const TEMPLATE_FIELDS = {
  trigger: z.enum(NOTIFICATION_TRIGGERS),
  channel: z.enum(NOTIFICATION_CHANNELS),
  locale: z.withMeta(
    Label(TEMPLATE_LIMITS.locale, { min: 1 }).check(
      z.refine((locale) => canonicalLocale(locale) === locale, {
        message: 'must be a BCP 47 language tag as Intl writes it, like en, de or pt-BR',
      }),
    ),
    { description: 'BCP 47 language tag, canonical form (en, de-AT)' },
  ),
};

export const NotificationTemplate = z.withMeta(
  z
    .object({
      ...TEMPLATE_FIELDS,
      subject: z.withMeta(z.optional(Label(TEMPLATE_LIMITS.emailSubject, { min: 1, notBlank: true })), {
        description: 'EMAIL only (required there)',
      }),
      body: FreeText(TEMPLATE_LIMITS.emailBody, { min: 1, notBlank: true }),
    })
    .check(
      z.superRefine((template, context) => {
        const isSms = template.channel === 'SMS';
        if (isSms && template.subject !== undefined)
          context.addIssue({ code: 'custom', path: ['subject'], message: 'an SMS has no subject' });
        if (!isSms && template.subject === undefined)
          context.addIssue({ code: 'custom', path: ['subject'], message: 'an email needs a subject' });
        if (isSms && characterCount(template.body) > TEMPLATE_LIMITS.smsBody)
          context.addIssue({
            code: 'custom',
            path: ['body'],
            message: `an SMS template must be at most ${TEMPLATE_LIMITS.smsBody} characters long`,
          });
        const bodyProblem = templateProblem(template.body, { needsLink: true });
        if (bodyProblem) context.addIssue({ code: 'custom', path: ['body'], message: bodyProblem });
        const subjectProblem = template.subject && templateProblem(template.subject, { needsLink: false });
        if (subjectProblem) context.addIssue({ code: 'custom', path: ['subject'], message: subjectProblem });
      }),
    ),
  {
    id: 'NotificationTemplate',
    description: `a message for one trigger, channel and locale; placeholders {{${Object.keys(PLACEHOLDERS).join('}}, {{')}}}, the body must have {{tracking_link}}; an SMS at most ${TEMPLATE_LIMITS.smsBody} characters, an email ${TEMPLATE_LIMITS.emailBody}`,
  },
);

export const UpdateNotificationSettingsBody = z.withMeta(
  z.object({
    triggers: z.withMeta(z._default(z.array(z.enum(NOTIFICATION_TRIGGERS)).check(noRepeats('trigger')), []), {
      description: 'the events a customer hears of; none (nothing is sent) when absent',
    }),
    channels: z.withMeta(
      z._default(z.array(z.enum(NOTIFICATION_CHANNELS)).check(z.minLength(1), noRepeats('channel')), [
        ...NOTIFICATION_CHANNELS,
      ]),
      { description: 'how: SMS to the recipient’s phone, EMAIL to their address; both when absent' },
    ),
    quiet_hours: z._default(z.nullable(QuietHours), null),
    templates: z.withMeta(
      z._default(
        z.array(NotificationTemplate).check(
          z.maxLength(TEMPLATE_LIMITS.templates),
          z.superRefine((templates, context) => {
            const bytes = templates.reduce(
              (total, { subject = '', body }) => total + Buffer.byteLength(subject) + Buffer.byteLength(body),
              0,
            );
            if (bytes > TEMPLATE_LIMITS.totalBytes)
              context.addIssue({
                code: 'custom',
                message: `hold ${bytes} bytes of UTF-8 in all; at most ${TEMPLATE_LIMITS.totalBytes}`,
              });
            const seen = new Set<string>();
            templates.forEach((template, index) => {
              const key = `${template.trigger} ${template.channel} ${template.locale}`;
              if (seen.has(key))
                context.addIssue({
                  code: 'custom',
                  path: [index, 'locale'],
                  message: `a second template for ${key}`,
                });
              seen.add(key);
            });
          }),
        ),
        [],
      ),
      {
        description: `the DC’s own templates, at most ${TEMPLATE_LIMITS.templates}, one per trigger, channel and locale; the English defaults stand in for the rest`,
      },
    ),
  }),
  {
    id: 'UpdateNotificationSettingsRequest',
    description: 'the settings whole; an absent field takes its default',
  },
);

const SmsSize = z.withMeta(
  z.object({
    segments: z.int(),
    encoding: z.enum(['GSM-7', 'UCS-2']),
    characters: z.int(),
  }),
  {
    id: 'SmsSize',
    description:
      'the SMS rendered with sample values (docs/api.md, Customer notifications): its segments (GSM-7 160 characters alone, 153 each when split; UCS-2 70, 67)',
  },
);

const TemplateView = z.object({
  ...TEMPLATE_FIELDS,
  subject: z.nullable(z.string()),
  body: z.string(),
  sms: z.withMeta(z.nullable(SmsSize), { description: 'SMS only' }),
});

export const NotificationSettings = z.withMeta(
  z.object({
    triggers: z.array(z.enum(NOTIFICATION_TRIGGERS)),
    channels: z.array(z.enum(NOTIFICATION_CHANNELS)),
    quiet_hours: z.nullable(QuietHours),
    templates: z.withMeta(z.array(TemplateView), { description: 'the DC’s own templates' }),
    default_templates: z.withMeta(z.array(TemplateView), {
      description: 'the English defaults, used where the DC has no template of its own',
    }),
    updated_at: z.withMeta(z.nullable(EpochMillis), { description: 'null until the DC sets them' }),
  }),
  { id: 'NotificationSettings' },
);

export const NotificationSettingsData = z.object({ notification_settings: NotificationSettings });
