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

export const Dc = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    id: /* @__PURE__ */ z.string(),
    name: /* @__PURE__ */ z.string(),
    time_zone: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), { description: 'IANA time zone' }),
  }),
  { id: 'Dc' },
);

/** The DC rows: an API key's and read-only. */
export const dcsEndpoint = /* @__PURE__ */ endpointGroup({ tag: 'DCs' });

const meters = (min: number, max: number) => z.int().check(z.minimum(min), z.maximum(max));

/*
 * The schema-building calls are marked pure and take no argument esbuild counts as an effect (a property read,
 * a spread, an interpolation): each function's bundle builds only the schemas it uses of this group's (the
 * settings' or the notification settings'), as with models/common.ts.
 */

/** The settings' rules: a radius GPS error (±25 m) cannot cross, a dwell a pass-by cannot reach. */
const ArrivalDetection = /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.boolean(), {
  description: 'whether arrivals and departures are detected from the driver app’s pings (default true)',
});
const ArrivalRadiusMeters = /* @__PURE__ */ z.withMeta(/* @__PURE__ */ meters(25, 1000), {
  description: 'a stop is arrived at once the driver stays this close to it (default 100)',
});
const ArrivalDwellSeconds = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.int().check(/* @__PURE__ */ z.minimum(10), /* @__PURE__ */ z.maximum(1800)),
  {
    description: 'for this long (default 60)',
  },
);
const DepartureMarginMeters = /* @__PURE__ */ z.withMeta(/* @__PURE__ */ meters(10, 1000), {
  description: 'and left once farther than the radius plus this (default 50)',
});
const ApproachingMinutes = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.int().check(/* @__PURE__ */ z.minimum(1), /* @__PURE__ */ z.maximum(120)),
  {
    description: 'WAYPOINT_APPROACHING goes out once a stop’s ETA is this close (default 10)',
  },
);

export const DcSettings = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    arrival_detection: ArrivalDetection,
    arrival_radius_meters: ArrivalRadiusMeters,
    arrival_dwell_seconds: ArrivalDwellSeconds,
    departure_margin_meters: DepartureMarginMeters,
    approaching_minutes: ApproachingMinutes,
    delivery_requirements: /* @__PURE__ */ z.withMeta(AppliedRequirements, {
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

export const UpdateDcSettingsBody = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z
    .object({
      arrival_detection: /* @__PURE__ */ z.optional(ArrivalDetection),
      arrival_radius_meters: /* @__PURE__ */ z.optional(ArrivalRadiusMeters),
      arrival_dwell_seconds: /* @__PURE__ */ z.optional(ArrivalDwellSeconds),
      departure_margin_meters: /* @__PURE__ */ z.optional(DepartureMarginMeters),
      approaching_minutes: /* @__PURE__ */ z.optional(ApproachingMinutes),
      delivery_requirements: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(DeliveryRequirements), {
        description: 'the DC’s default delivery rules, replacing the ones before: a rule left out is off',
      }),
    })
    .check(
      /* @__PURE__ */ z.refine((body) => Object.values(body).some((value) => value !== undefined), {
        path: ['arrival_radius_meters'],
        message: 'give at least one setting',
      }),
    ),
  { id: 'UpdateDcSettingsRequest', description: 'the settings to change; the others keep their values' },
);

export const DcSettingsData = /* @__PURE__ */ z.object({ settings: DcSettings });

/** The settings of one DC: its params. */
export const dcSettingsEndpoint = /* @__PURE__ */ endpointGroup({
  tag: 'DCs',
  request: { params: DcParams },
  errorCodes: [1003],
});
export const dcSettingsChangeEndpoint = /* @__PURE__ */ endpointGroup({
  tag: 'DCs',
  request: { params: DcParams },
  errorCodes: [1003],
  access: { table: 'readWrite' },
});

const HourMinute = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z
    .string()
    .check(/* @__PURE__ */ z.regex(/^([01]\d|2[0-3]):[0-5]\d$/u, { message: 'must be HH:MM, 00:00..23:59' })),
  { description: 'HH:MM in the DC’s time zone', example: '21:00' },
);

const QuietHours = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({ start: HourMinute, end: HourMinute }).check(
    /* @__PURE__ */ z.refine((hours) => hours.start !== hours.end, {
      path: ['end'],
      message: 'must differ from start',
    }),
  ),
  {
    id: 'QuietHours',
    description:
      'from `start` to `end` (past midnight when `end` comes first) in the DC’s time zone no message is sent; one due then is dropped, not held',
  },
);

const noRepeats = <T extends string>(what: string) =>
  z.refine<T[]>((values) => new Set(values).size === values.length, { message: `lists a ${what} twice` });

const {
  locale: MAX_LOCALE,
  emailSubject: MAX_EMAIL_SUBJECT,
  emailBody: MAX_EMAIL_BODY,
  templates: MAX_TEMPLATES,
} = TEMPLATE_LIMITS;
const TEMPLATE_DESCRIPTION = `a message for one trigger, channel and locale; placeholders {{${Object.keys(PLACEHOLDERS).join('}}, {{')}}}, the body must have {{tracking_link}}; an SMS at most ${TEMPLATE_LIMITS.smsBody} characters, an email ${TEMPLATE_LIMITS.emailBody}`;
const TEMPLATES_DESCRIPTION = `the DC’s own templates, at most ${TEMPLATE_LIMITS.templates}, one per trigger, channel and locale; the English defaults stand in for the rest`;
const ALL_CHANNELS = [...NOTIFICATION_CHANNELS];

const Trigger = /* @__PURE__ */ z.enum(NOTIFICATION_TRIGGERS);
const Channel = /* @__PURE__ */ z.enum(NOTIFICATION_CHANNELS);
const Locale = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ Label(MAX_LOCALE, { min: 1 }).check(
    /* @__PURE__ */ z.refine((locale) => canonicalLocale(locale) === locale, {
      message: 'must be a BCP 47 language tag as Intl writes it, like en, de or pt-BR',
    }),
  ),
  { description: 'BCP 47 language tag, canonical form (en, de-AT)' },
);

export const NotificationTemplate = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z
    .object({
      trigger: Trigger,
      channel: Channel,
      locale: Locale,
      subject: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z.optional(/* @__PURE__ */ Label(MAX_EMAIL_SUBJECT, { min: 1, notBlank: true })),
        {
          description: 'EMAIL only (required there)',
        },
      ),
      body: /* @__PURE__ */ FreeText(MAX_EMAIL_BODY, { min: 1, notBlank: true }),
    })
    .check(
      /* @__PURE__ */ z.superRefine((template, context) => {
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
    description: TEMPLATE_DESCRIPTION,
  },
);

export const UpdateNotificationSettingsBody = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    triggers: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z._default(
        /* @__PURE__ */ z
          .array(/* @__PURE__ */ z.enum(NOTIFICATION_TRIGGERS))
          .check(/* @__PURE__ */ noRepeats('trigger')),
        [],
      ),
      {
        description: 'the events a customer hears of; none (nothing is sent) when absent',
      },
    ),
    channels: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z._default(
        /* @__PURE__ */ z
          .array(/* @__PURE__ */ z.enum(NOTIFICATION_CHANNELS))
          .check(/* @__PURE__ */ z.minLength(1), /* @__PURE__ */ noRepeats('channel')),
        ALL_CHANNELS,
      ),
      { description: 'how: SMS to the recipient’s phone, EMAIL to their address; both when absent' },
    ),
    quiet_hours: /* @__PURE__ */ z._default(/* @__PURE__ */ z.nullable(QuietHours), null),
    templates: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z._default(
        /* @__PURE__ */ z.array(NotificationTemplate).check(
          /* @__PURE__ */ z.maxLength(MAX_TEMPLATES),
          /* @__PURE__ */ z.superRefine((templates, context) => {
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
        description: TEMPLATES_DESCRIPTION,
      },
    ),
  }),
  {
    id: 'UpdateNotificationSettingsRequest',
    description: 'the settings whole; an absent field takes its default',
  },
);

const SmsSize = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    segments: /* @__PURE__ */ z.int(),
    encoding: /* @__PURE__ */ z.enum(['GSM-7', 'UCS-2']),
    characters: /* @__PURE__ */ z.int(),
  }),
  {
    id: 'SmsSize',
    description:
      'the SMS rendered with sample values (docs/api.md, Customer notifications): its segments (GSM-7 160 characters alone, 153 each when split; UCS-2 70, 67)',
  },
);

const TemplateView = /* @__PURE__ */ z.object({
  trigger: Trigger,
  channel: Channel,
  locale: Locale,
  subject: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
  body: /* @__PURE__ */ z.string(),
  sms: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(SmsSize), { description: 'SMS only' }),
});

export const NotificationSettings = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    triggers: /* @__PURE__ */ z.array(/* @__PURE__ */ z.enum(NOTIFICATION_TRIGGERS)),
    channels: /* @__PURE__ */ z.array(/* @__PURE__ */ z.enum(NOTIFICATION_CHANNELS)),
    quiet_hours: /* @__PURE__ */ z.nullable(QuietHours),
    templates: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.array(TemplateView), {
      description: 'the DC’s own templates',
    }),
    default_templates: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.array(TemplateView), {
      description: 'the English defaults, used where the DC has no template of its own',
    }),
    updated_at: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(EpochMillis), {
      description: 'null until the DC sets them',
    }),
  }),
  { id: 'NotificationSettings' },
);

export const NotificationSettingsData = /* @__PURE__ */ z.object({
  notification_settings: NotificationSettings,
});
