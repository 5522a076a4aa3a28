const formatters = new Map<string, Intl.DateTimeFormat>();

/** The YYYY-MM-DD date of an instant in an IANA time zone (a route's DC-local service date). */
export function localDateOf(epochMillis: number, timeZone: string): string {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter.format(new Date(epochMillis));
}
