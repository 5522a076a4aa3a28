import { expect } from 'vitest';
import { bundled, type EndpointDefinition } from '../../functions/api/define';
import { endpoints } from '../../functions/api/index';
import { buildOpenApiDocument } from '../../functions/api/openapi';
import type * as z from '../../functions/shared/zod';
import {
  type ObservedDelivery,
  type ObservedResponse,
  type OpenApiDocument,
  responseContract,
} from './openapi-contract';

export interface ApiResponse {
  status: number;
  body: { status: 'success' | 'error'; data: Record<string, unknown> } & Record<string, unknown>;
  text: string;
  headers: Headers;
}

export interface CallOptions {
  key?: string;
  /** An object is sent as JSON; a string is sent as it is (for malformed bodies). */
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * Retry a 429 after a short backoff, as a client of the API must (the stage and some methods are throttled,
   * locally as on AWS). Default true; false to see the 429.
   */
  retryThrottled?: boolean;
}

/**
 * One HTTP call to the local API; returns status and parsed body (every answer must be JSON). Each answer,
 * a retried 429 included, must be what the OpenAPI document says the operation answers (`callRaw`).
 */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.Authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['Content-Type'] ??= 'application/json';
  }
  for (let attempt = 0; ; attempt++) {
    const response = await callRaw(baseUrl, method, path, { headers, body });
    if (response.status !== 429 || options.retryThrottled === false || attempt >= 60)
      return {
        status: response.status,
        body: JSON.parse(response.text),
        text: response.text,
        headers: response.headers,
      };
    await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 500)));
  }
}

export interface RawApiResponse {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * One HTTP call to the local API, for answers that are not JSON (the docs page and its files) or not an
 * envelope: status, headers and text, after failing the test unless the answer is one the OpenAPI document
 * gives for the operation (`expectDocumented`; the body parsed first when its media type is JSON).
 */
export async function callRaw(
  baseUrl: string,
  method: string,
  path: string,
  init: Omit<RequestInit, 'method'> = {},
): Promise<RawApiResponse> {
  const response = await fetch(`${baseUrl}${path}`, { ...init, method });
  const text = await response.text();
  const contentType = response.headers.get('content-type');
  expectDocumented({
    method,
    path,
    status: response.status,
    contentType,
    body: text,
    headers: response.headers,
  });
  return { status: response.status, headers: response.headers, text };
}

let contract: ReturnType<typeof responseContract> | undefined;

/**
 * What is wrong with an answer by the OpenAPI document (empty when nothing is): the document GET
 * /openapi.json serves, compiled once per test worker. A raw body is parsed first when it is JSON (`+json` types too).
 */
export function contractViolations(response: ObservedResponse): string[] {
  contract ??= responseContract(buildOpenApiDocument(endpoints) as unknown as OpenApiDocument);
  const { body, contentType } = response;
  // application/json, and the JSON types of a structured suffix: application/geo+json.
  const json =
    typeof body === 'string' && body !== '' && /^application\/([\w.-]+\+)?json\b/i.test(contentType ?? '');
  return contract.violations(json ? { ...response, body: JSON.parse(body) } : response);
}

/**
 * What is wrong with a webhook delivery by the document's `webhooks` section (empty when nothing is): the
 * same document and compiled schemas as the answers'.
 */
export function deliveryContractViolations(delivery: ObservedDelivery): string[] {
  contract ??= responseContract(buildOpenApiDocument(endpoints) as unknown as OpenApiDocument);
  return contract.deliveryViolations(delivery);
}

/**
 * Fails unless the operation the method and path name documents the answer's status and media type, and the
 * body fits the schema documented for them.
 */
export function expectDocumented(response: ObservedResponse): void {
  const violations = contractViolations(response);
  const body = typeof response.body === 'string' ? response.body : (JSON.stringify(response.body) ?? '');
  expect(violations, `the answer breaks the OpenAPI document: ${body.slice(0, 2000)}`).toEqual([]);
}

/** Asserts a success envelope whose data matches the endpoint's declared response schema; returns data. */
export function expectSuccess<E extends EndpointDefinition>(
  response: ApiResponse,
  endpoint: E,
  status: 200 | 202 = 200,
) {
  expect(response.status, response.text).toBe(status);
  expect(response.body.status).toBe('success');
  const schema = bundled(endpoint.responses)[status]?.data as z.ZodMiniType;
  const parsed = schema.safeParse(response.body.data);
  expect(
    parsed.success,
    `response data does not match the ${endpoint.operationId} schema: ${response.text}`,
  ).toBe(true);
  return response.body.data as never;
}

/** Asserts the error envelope with the given HTTP status and code; returns the message. */
export function expectError(response: ApiResponse, status: number, code: number): string {
  expect(response.status, response.text).toBe(status);
  expect(response.body).toEqual({ status: 'error', data: { code, message: expect.any(String) } });
  const message = response.body.data.message as string;
  expect(message).not.toMatch(/\bat .+\.(ts|js):\d+/); // never a stack trace
  return message;
}

/**
 * Every page of a paged list, in order: follows `next_token` until a page carries none. Each page's data
 * is checked against the endpoint's schema.
 */
export async function readAllPages<E extends EndpointDefinition>(
  get: (pathAndQuery: string) => Promise<ApiResponse>,
  path: string,
  endpoint: E,
  query: Record<string, string> = {},
): Promise<Record<string, unknown>[]> {
  const pages: Record<string, unknown>[] = [];
  let nextToken: string | undefined;
  do {
    const params = new URLSearchParams({ ...query, ...(nextToken ? { next_token: nextToken } : {}) });
    const page = expectSuccess(await get(params.size > 0 ? `${path}?${params}` : path), endpoint) as Record<
      string,
      unknown
    >;
    pages.push(page);
    nextToken = page.next_token as string | undefined;
  } while (nextToken);
  return pages;
}

/**
 * The `listKey` entries of all pages in order, an entry cut by a page boundary (the same id ending one page
 * and starting the next) joined again by concatenating its `continuedKey` lists.
 */
export function joinPages<T extends { id: string }>(
  pages: readonly Record<string, unknown>[],
  listKey: string,
  continuedKey: keyof T & string,
): T[] {
  const joined: T[] = [];
  for (const page of pages) {
    const [first, ...rest] = page[listKey] as T[];
    if (!first) continue;
    const previous = joined.at(-1);
    if (previous?.id === first.id) {
      const continued = [...(previous[continuedKey] as unknown[]), ...(first[continuedKey] as unknown[])];
      joined[joined.length - 1] = { ...previous, [continuedKey]: continued };
    } else {
      joined.push(first);
    }
    joined.push(...rest);
  }
  return joined;
}
