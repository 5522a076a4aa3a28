import { createHash } from 'node:crypto';
import type { TrackedStop } from '../../domain/tracked-stop';
import type { UnsubscribeSubject } from '../../domain/unsubscribe';

/** The JSON answer: the TrackedStop schema's fields. */
export function trackedStopView(stop: TrackedStop) {
  return {
    status: stop.status,
    route_status: stop.routeStatus,
    eta: stop.eta,
    eta_window: stop.etaWindow,
    stops_before: stop.stopsBefore,
    driver_close: stop.driverClose,
    completed_at: stop.completedAt,
    dc_name: stop.dcName,
    stop_name: stop.stopName,
    address: stop.address,
    driver_first_name: stop.driverFirstName,
    pin: stop.pin,
    time_zone: stop.timeZone,
    expires_at: stop.expiresAt,
  };
}

// ---- The page ----

/** Seconds between the page's own reloads while its delivery is to come. */
export const TRACKING_PAGE_REFRESH_SECONDS = 30;

/** System fonts, no image, nothing from anywhere: fits a 390 px phone, long unbroken names included. */
const STYLE = [
  '*{box-sizing:border-box}',
  'body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;background:#f3f4f6}',
  'main{max-width:32rem;margin:0 auto;padding:1.25rem 1rem;overflow-wrap:anywhere}',
  '.from{margin:0;color:#4b5563;font-size:.9rem}',
  'h1{margin:.25rem 0 .5rem;font-size:1.6rem;line-height:1.2}',
  '.lead{margin:0 0 1rem;font-size:1.1rem}',
  'dl{margin:0;padding:.25rem 1rem;background:#fff;border-radius:.5rem}',
  'dl div{padding:.6rem 0;border-top:1px solid #e5e7eb}',
  'dl div:first-child{border-top:0}',
  'dt{color:#4b5563;font-size:.8rem}',
  'dd{margin:0;white-space:pre-line}',
  '.note{color:#4b5563;font-size:.85rem}',
  'button{font:inherit;padding:.6rem 1.2rem;border:0;border-radius:.5rem;background:#1d4ed8;color:#fff;cursor:pointer}',
].join('');

/**
 * Nothing but the page itself: no script, no request anywhere (the icon is an empty data: URL), its one style
 * sheet by its hash rather than any inline style, no framing, no form, no base URL.
 */
export const TRACKING_PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The unsubscribe page's: the same, but its one form may post to its own URL. */
export const UNSUBSCRIBE_PAGE_CONTENT_SECURITY_POLICY = TRACKING_PAGE_CONTENT_SECURITY_POLICY.replace(
  "form-action 'none'",
  "form-action 'self'",
);

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text as HTML element content or a quoted attribute value: customer data (names, addresses) is never markup. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? '');

/** A whole page: its title, what it says (already HTML), and whether it reloads itself. */
function page(title: string, body: string, refresh: boolean): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
${refresh ? `<meta http-equiv="refresh" content="${TRACKING_PAGE_REFRESH_SECONDS}">\n` : ''}<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** Times as the DC's clocks show them: `Mon, Nov 23, 10:15 AM`. */
function clock(timeZone: string) {
  return new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  });
}

/** What the page says first: where the delivery stands. */
function headline(stop: TrackedStop, at: Intl.DateTimeFormat): { title: string; lead: string } {
  if (stop.status === 'SUCCESSFUL' && stop.completedAt !== null)
    return { title: 'Delivered', lead: `Delivered ${at.format(stop.completedAt)}.` };
  if (stop.status === 'FAILED' && stop.completedAt !== null)
    return {
      title: 'Not delivered',
      lead: `The delivery could not be made (${at.format(stop.completedAt)}).`,
    };
  if (stop.routeStatus === 'FINISHED')
    return { title: 'Not delivered', lead: 'The route has ended without this delivery.' };
  const window = stop.etaWindow ? at.formatRange(stop.etaWindow.start, stop.etaWindow.end) : undefined;
  if (stop.routeStatus === 'STARTED' && stop.driverClose)
    return {
      title: 'Almost there',
      lead:
        stop.stopsBefore === 0
          ? 'The driver is close: yours is the next stop.'
          : `The driver is close: ${stop.stopsBefore} ${stop.stopsBefore === 1 ? 'stop' : 'stops'} before yours.`,
    };
  if (stop.routeStatus === 'STARTED')
    return { title: 'On its way', lead: window ? `Expected ${window}.` : 'The driver is on the way.' };
  return { title: 'Scheduled', lead: window ? `Planned for ${window}.` : 'The delivery is planned.' };
}

/** The tracking page of a waypoint. Every text from the DC, the import or the driver is escaped. */
export function trackingPage(stop: TrackedStop): string {
  const at = clock(stop.timeZone);
  const { title, lead } = headline(stop, at);
  const facts: [string, string | null][] = [
    ['Stop', stop.stopName],
    ['Address', stop.address],
    ['Stops before yours', stop.stopsBefore === null ? null : String(stop.stopsBefore)],
    ['Driver', stop.driverFirstName],
    ['Your code for the driver', stop.pin],
  ];
  const shown = facts.filter((fact): fact is [string, string] => fact[1] !== null && fact[1] !== '');
  const toCome = stop.completedAt === null && stop.routeStatus !== 'FINISHED';
  const body = [
    `<p class="from">${escapeHtml(stop.dcName)}</p>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="lead">${escapeHtml(lead)}</p>`,
    shown.length > 0
      ? `<dl>\n${shown.map(([term, value]) => `<div><dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd></div>`).join('\n')}\n</dl>`
      : '',
    `<p class="note">Times are in ${escapeHtml(stop.timeZone)}.${toCome ? ` This page refreshes itself every ${TRACKING_PAGE_REFRESH_SECONDS} seconds.` : ''}</p>`,
  ].join('\n');
  return page(`${title} · ${stop.dcName}`, body, toCome);
}

/** The page for a link that names no delivery (404), has expired (410), or could not be read (500). */
export function trackingErrorPage(httpStatus: number): string {
  const [title, text] =
    httpStatus === 404
      ? ['Link not found', 'This tracking link does not match any delivery. Check that it was copied whole.']
      : httpStatus === 410
        ? ['Link expired', 'This tracking link has expired: links work until a day after the delivery.']
        : ['Something went wrong', 'The delivery could not be looked up just now. Please try again shortly.'];
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p class="lead">${escapeHtml(text)}</p>`, false);
}

// ---- Unsubscribe ----

/** The JSON answer of an unsubscribe link: the UnsubscribeStatus schema's fields. */
export const unsubscribeView = (subject: UnsubscribeSubject) => ({
  dc_name: subject.dcName,
  email: subject.email,
  unsubscribed: subject.optedOut,
});

/**
 * The page of an unsubscribe link (GET): one button that POSTs RFC 8058's body to the page's own URL (an empty
 * `action`), since a GET must change nothing; or, once done, saying so.
 */
export function unsubscribePage(subject: UnsubscribeSubject): string {
  const from = `<p class="from">${escapeHtml(subject.dcName)}</p>`;
  if (subject.optedOut)
    return page(
      'Unsubscribed',
      `${from}\n<h1>Unsubscribed</h1>\n<p class="lead">${escapeHtml(subject.email)} gets no more delivery emails from ${escapeHtml(subject.dcName)}.</p>`,
      false,
    );
  return page(
    'Unsubscribe',
    [
      from,
      '<h1>Unsubscribe</h1>',
      `<p class="lead">Stop delivery emails from ${escapeHtml(subject.dcName)} to ${escapeHtml(subject.email)}?</p>`,
      '<form method="post" action=""><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>',
    ].join('\n'),
    false,
  );
}

/** The page for an unsubscribe link that names nobody (404) or could not be read (500). */
export function unsubscribeErrorPage(httpStatus: number): string {
  const [title, text] =
    httpStatus === 404
      ? [
          'Link not found',
          'This unsubscribe link does not match any email address. Check that it was copied whole.',
        ]
      : httpStatus === 400
        ? ['Not unsubscribed', 'Use the Unsubscribe button of the page this link opens.']
        : ['Something went wrong', 'The unsubscribe could not be made just now. Please try again shortly.'];
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p class="lead">${escapeHtml(text)}</p>`, false);
}
