import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import Negotiator from 'negotiator';

/**
 * How the tracking host's endpoints answer (the tracking page, unsubscribe links): HTML for a browser, JSON
 * otherwise, with the same headers whichever it is.
 */

/** JSON first: a client that says nothing (curl's `*\/*`, a mail client's POST) gets JSON; a browser asks for `text/html`. */
const MEDIA_TYPES = ['application/json', 'text/html'];

/**
 * Every answer: the pages show a customer's address, so nothing keeps a copy (no-store); the token must not
 * leave with a Referer; search engines leave them alone.
 */
const COMMON_HEADERS = {
  'Cache-Control': 'no-store',
  Vary: 'Accept',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Robots-Tag': 'noindex',
};

/** A request header, whatever its case. */
export const headerOf = (event: APIGatewayProxyEvent, name: string) =>
  Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1] ?? undefined;

export const prefersHtml = (event: APIGatewayProxyEvent) =>
  new Negotiator({ headers: { accept: headerOf(event, 'accept') } }).mediaType(MEDIA_TYPES) === 'text/html';

/** The page (under its Content-Security-Policy) when `html`, else the JSON answer; only the one chosen is made. */
export function hostAnswer(
  html: boolean,
  contentSecurityPolicy: string,
  status: number,
  page: () => string,
  json: () => APIGatewayProxyResult,
): APIGatewayProxyResult {
  if (!html) {
    const response = json();
    return { ...response, headers: { ...response.headers, ...COMMON_HEADERS } };
  }
  return {
    statusCode: status,
    headers: {
      ...COMMON_HEADERS,
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': contentSecurityPolicy,
    },
    body: page(),
  };
}
