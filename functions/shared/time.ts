/**
 * The formatter of `options` for a time zone, made once per zone (making one is slow; an export formats every
 * row's times with it).
 */
export function zonedFormatter(
  locale: string,
  options: Omit<Intl.DateTimeFormatOptions, 'timeZone'>,
): (timeZone: string) => Intl.DateTimeFormat {
  const formatters = new Map<string, Intl.DateTimeFormat>();
  return (timeZone) => {
    let formatter = formatters.get(timeZone);
    if (!formatter) {
      formatter = new Intl.DateTimeFormat(locale, { timeZone, ...options });
      formatters.set(timeZone, formatter);
    }
    return formatter;
  };
}

/** A date and a time to the second, two digits each. */
export const DATE_TIME_FIELDS: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  // h23, not hour12: false, which some engines render as 24:00 at midnight.
  hourCycle: 'h23',
};

const dateFormatter = zonedFormatter('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit' });

/** The YYYY-MM-DD date of an instant in an IANA time zone (a route's DC-local service date). */
export function localDateOf(epochMillis: number, timeZone: string): string {
  return dateFormatter(timeZone).format(new Date(epochMillis));
}
