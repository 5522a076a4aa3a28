import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { parseItem } from 'structured-headers';
import { answerOnce, type IdempotencyScope } from '../domain/idempotency';
import { BARE_IDEMPOTENCY_KEY, IDEMPOTENCY_HEADER_NAME, IDEMPOTENCY_KEY_HEADER } from '../models/idempotency';
import type { Caller } from '../shared/auth-context';
import { sha256Hex } from '../shared/crypto';
import { ValidationError } from '../shared/errors';
import { inKeyOrder } from '../shared/key-order';
import { IDEMPOTENCY_KEYS } from '../shared/limits';
import { headerValues } from '../shared/request-parsing';
import type { EndpointDefinition } from './define';

const INVALID_KEY = `header.${IDEMPOTENCY_KEY_HEADER}: must be 1..${IDEMPOTENCY_KEYS.maxKeyLength} printable ASCII characters, sent once, bare (8e03978e-40d5-43e8-bc93-6894a57f9324: no space, quote, backslash, comma or semicolon) or as a quoted string (a Structured Field String, RFC 8941: "8e03978e-40d5-43e8-bc93-6894a57f9324")`;

const BARE_KEY = new RegExp(`^${BARE_IDEMPOTENCY_KEY}$`);

/**
 * The request's Idempotency-Key, or undefined when it sends none (the key is optional). The IETF httpapi
 * draft makes it an Item Structured Header whose value is a String (`Idempotency-Key: "<key>"`); most
 * clients send the key bare (`Idempotency-Key: <key>`), and both denote the same key. Sent once: anything
 * else (parameters, a list, two fields, a bare value with a space) is 1006 naming the header.
 */
export function readIdempotencyKey(event: APIGatewayProxyEvent): string | undefined {
  const values = headerValues(event, IDEMPOTENCY_HEADER_NAME);
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new ValidationError(`${INVALID_KEY}; it came ${values.length} times`);
  const field = (values[0] as string).trim();
  if (!field.startsWith('"')) {
    if (BARE_KEY.test(field)) return field;
    throw new ValidationError(INVALID_KEY);
  }
  let item: ReturnType<typeof parseItem>;
  try {
    item = parseItem(field);
  } catch {
    throw new ValidationError(INVALID_KEY);
  }
  const [value, parameters] = item;
  if (typeof value !== 'string' || parameters.size > 0) throw new ValidationError(INVALID_KEY);
  if (value.length < 1 || value.length > IDEMPOTENCY_KEYS.maxKeyLength)
    throw new ValidationError(INVALID_KEY);
  return value;
}

/** Whose keys the caller's are: its account's, and on the driver app the driver's own. */
export function idempotencyScope(caller: Caller): IdempotencyScope | undefined {
  if (caller.kind === 'apiKey') return { accountId: caller.accountId };
  if (caller.kind === 'driverToken')
    return { accountId: caller.accountId, driver: { dcId: caller.dcId, driverId: caller.driverId } };
  return undefined;
}

/**
 * What makes two requests with a key the same request: the endpoint's method and path, the path's ids as
 * decoded, the query, and the body as JSON (its fields in any order, its spacing of no account).
 */
export function requestHash(
  endpoint: Pick<EndpointDefinition, 'method' | 'path'>,
  pathParameters: Record<string, string>,
  query: unknown,
  body: unknown,
): string {
  return sha256Hex(JSON.stringify(inKeyOrder([endpoint.method, endpoint.path, pathParameters, query, body])));
}

/** A write that names the Idempotency-Key header, as http-handler.ts has parsed it. */
export interface KeyedWrite {
  endpoint: Pick<EndpointDefinition, 'method' | 'path'>;
  event: APIGatewayProxyEvent;
  caller: Caller;
  pathParameters: Record<string, string>;
  query: unknown;
  body: unknown;
  /** Epoch ms the function may run until. */
  deadline: number;
}

/**
 * The answer to a write that names the header: given once per key (functions/domain/idempotency.ts), or as
 * it comes when the header holds no key. http-handler.ts loads this module with the first such request, so
 * that reads and writes without a key never load it (structured-headers, the key store).
 */
export async function answerKeyedWrite(
  write: KeyedWrite,
  answer: () => Promise<APIGatewayProxyResult>,
): Promise<APIGatewayProxyResult> {
  const key = readIdempotencyKey(write.event);
  const scope = idempotencyScope(write.caller);
  if (key === undefined || !scope) return answer();
  const hash = requestHash(write.endpoint, write.pathParameters, write.query, write.body);
  return answerOnce({ scope, key, requestHash: hash, deadline: write.deadline }, answer);
}
