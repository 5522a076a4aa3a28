import * as z from '../shared/zod';
import { Label } from './common';
import { canonicalLocale } from './notification-templates';

// Schema-building calls marked pure: a bundle builds only the schemas of this module its function uses
// (docs/architecture.md, cold starts).

/**
 * Who a stop's customer messages go to (docs/api.md, Customer notifications): a waypoint's `recipient` in an
 * import or revision. Stored sealed (functions/domain/recipients.ts); the route and waypoint reads show it
 * masked, the driver app never. The messages of its problems never echo a value.
 */

export const RECIPIENT_LIMITS = {
  name: 200,
  /** RFC 5321's longest forward path, less its angle brackets. */
  email: 254,
  locale: 35,
} as const;

/**
 * E.164: `+`, a country code that does not start with 0, at most 15 digits in all, nothing else (no spaces,
 * dashes or brackets). Whether the number is in service is the SMS provider's to say (its delivery receipt).
 */
export const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * An address as senders and SES take one: a local part of printable ASCII without spaces, `@`, a domain of
 * labels of letters, digits and hyphens with a dot. Internationalized addresses are not taken (SES v2 sends
 * to them only in Punycode, which the client can give).
 */
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

export const Recipient = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z
    .object({
      name: /* @__PURE__ */ z.optional(/* @__PURE__ */ Label(RECIPIENT_LIMITS.name, { notBlank: true })),
      phone: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z.optional(
          /* @__PURE__ */ z
            .string()
            .check(
              /* @__PURE__ */ z.regex(
                E164,
                'must be an E.164 number: + and 7 to 15 digits, such as +14155550123',
              ),
            ),
        ),
        { description: 'E.164 (`+14155550123`): SMS messages go to it' },
      ),
      email: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z.optional(
          /* @__PURE__ */ z
            .string()
            .check(
              /* @__PURE__ */ z.maxLength(
                RECIPIENT_LIMITS.email,
                `must have at most ${RECIPIENT_LIMITS.email} characters`,
              ),
              /* @__PURE__ */ z.regex(
                EMAIL,
                'must be an email address such as dana@example.com (ASCII; Punycode domains)',
              ),
            ),
        ),
        { description: 'email messages go to it' },
      ),
      locale: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z._default(
          /* @__PURE__ */ z.string().check(
            /* @__PURE__ */ z.maxLength(RECIPIENT_LIMITS.locale),
            /* @__PURE__ */ z.refine((locale) => canonicalLocale(locale) === locale, {
              message: 'must be a canonical BCP 47 tag with an ISO 639 language, such as en, de or de-AT',
            }),
          ),
          'en',
        ),
        {
          description:
            'the language of the messages (the DC’s template for it, else English); `en` by default',
        },
      ),
    })
    .check(
      /* @__PURE__ */ z.refine(
        (recipient) => recipient.phone !== undefined || recipient.email !== undefined,
        {
          message: 'must have a phone or an email (or both)',
          path: ['phone'],
        },
      ),
    ),
  {
    id: 'Recipient',
    description:
      'who the stop’s customer messages go to; stored encrypted, shown masked to the account, never to the driver app',
  },
);
export type Recipient = z.output<typeof Recipient>;

/** The masked form the account's reads answer: enough to recognise the recipient, not to reach them. */
export interface MaskedRecipient {
  name: string | null;
  phone: string | null;
  email: string | null;
  locale: string;
}

/** `+1415•••0123`: the country code's first digits and the last four. */
export const maskPhone = (phone: string) =>
  `${phone.slice(0, 5)}${'•'.repeat(Math.max(phone.length - 9, 1))}${phone.slice(-4)}`;

/** `d•••@example.com`: the local part's first character and the domain. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, 1)}•••${email.slice(at)}`;
}

export const maskRecipient = (recipient: Recipient): MaskedRecipient => ({
  name: recipient.name ?? null,
  phone: recipient.phone === undefined ? null : maskPhone(recipient.phone),
  email: recipient.email === undefined ? null : maskEmail(recipient.email),
  locale: recipient.locale,
});
