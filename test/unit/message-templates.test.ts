import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TEMPLATES,
  render,
  SAMPLE_VALUES,
  smsSize,
  templateFor,
} from '../../functions/domain/message-templates';
import {
  canonicalLocale,
  type MessageTemplate,
  NOTIFICATION_CHANNELS,
  NOTIFICATION_TRIGGERS,
  templateProblem,
} from '../../functions/models/notification-templates';

describe('templateProblem', () => {
  it('accepts the placeholders, spaces inside the braces too', () => {
    expect(
      templateProblem('{{ dc_name }}: {{stop_name}} {{tracking_link}}', { needsLink: true }),
    ).toBeUndefined();
  });

  it('names a placeholder that is none, and lists the ones there are', () => {
    expect(templateProblem('Hi {{name}} {{tracking_link}}', { needsLink: true })).toMatch(
      /^names \{\{name\}\}, which is no placeholder; the placeholders are stop_name, eta_window, /,
    );
    expect(templateProblem('{{constructor}} {{tracking_link}}', { needsLink: true })).toMatch(/constructor/);
  });

  it('refuses braces that are no placeholder, and a body without the tracking link', () => {
    expect(templateProblem('{{dc_name} {{tracking_link}}', { needsLink: true })).toMatch(/\{\{ or \}\}/);
    expect(templateProblem('{{#each x}}{{tracking_link}}', { needsLink: true })).toMatch(/no placeholder/);
    expect(templateProblem('{{dc_name}} says hi', { needsLink: true })).toBe(
      'must contain {{tracking_link}}',
    );
    expect(templateProblem('{{dc_name}} says hi', { needsLink: false })).toBeUndefined();
  });
});

describe('render', () => {
  it('puts the values in, once: a value that looks like a placeholder stays as it is', () => {
    const values = { ...SAMPLE_VALUES, stop_name: '{{dc_name}} <b>&' };
    expect(render('{{ stop_name }} / {{dc_name}}', values)).toBe('{{dc_name}} <b>& / Chicago North');
  });
});

describe('smsSize', () => {
  it('counts GSM-7 segments: 160 characters alone, 153 each when split', () => {
    expect(smsSize('a'.repeat(160))).toEqual({ segments: 1, encoding: 'GSM-7', characters: 160 });
    expect(smsSize('a'.repeat(161))).toEqual({ segments: 2, encoding: 'GSM-7', characters: 161 });
    expect(smsSize('a'.repeat(306)).segments).toBe(2);
    expect(smsSize('a'.repeat(307)).segments).toBe(3);
  });

  it('counts UCS-2 (70, 67) once one character has no GSM-7 code: a typographic apostrophe', () => {
    expect(smsSize(`we’re ${'a'.repeat(64)}`)).toEqual({ segments: 1, encoding: 'UCS-2', characters: 70 });
    expect(smsSize(`we’re ${'a'.repeat(65)}`).segments).toBe(2);
  });
});

describe('DEFAULT_TEMPLATES', () => {
  it('has an English SMS and email for every trigger, each valid, each SMS one GSM-7 segment', () => {
    for (const trigger of NOTIFICATION_TRIGGERS)
      for (const channel of NOTIFICATION_CHANNELS) {
        const template = templateFor([], trigger, channel, 'en');
        expect(template.locale).toBe('en');
        expect(templateProblem(template.body, { needsLink: true })).toBeUndefined();
        if (channel === 'EMAIL')
          expect(templateProblem(template.subject ?? '', { needsLink: false })).toBeUndefined();
        else
          expect(smsSize(render(template.body, SAMPLE_VALUES))).toMatchObject({
            segments: 1,
            encoding: 'GSM-7',
          });
      }
    expect(DEFAULT_TEMPLATES).toHaveLength(NOTIFICATION_TRIGGERS.length * NOTIFICATION_CHANNELS.length);
  });
});

describe('templateFor', () => {
  const own = (locale: string, body: string): MessageTemplate => ({
    trigger: 'LATE',
    channel: 'SMS',
    locale,
    body,
  });

  it('falls back from the locale to its language, then to the DC’s English, then to the default', () => {
    const templates = [
      own('de', 'de {{tracking_link}}'),
      own('en', 'en {{tracking_link}}'),
      own('pt-BR', 'br'),
    ];
    expect(templateFor(templates, 'LATE', 'SMS', 'pt-BR').body).toBe('br');
    expect(templateFor(templates, 'LATE', 'SMS', 'de-AT').body).toBe('de {{tracking_link}}');
    expect(templateFor(templates, 'LATE', 'SMS', 'fr').body).toBe('en {{tracking_link}}');
    expect(templateFor([own('de', 'de')], 'LATE', 'SMS', 'fr').body).toMatch(/runs late/);
    expect(templateFor(templates, 'LATE', 'EMAIL', 'de').subject).toMatch(/runs late/);
  });
});

describe('canonicalLocale', () => {
  it('answers the canonical tag, or undefined for what is none', () => {
    expect(canonicalLocale('pt-br')).toBe('pt-BR');
    expect(canonicalLocale('en')).toBe('en');
    expect(canonicalLocale('not a locale')).toBeUndefined();
    expect(canonicalLocale('english')).toBeUndefined();
  });
});
