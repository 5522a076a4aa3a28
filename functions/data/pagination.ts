import { ValidationError } from '../shared/errors';
import type { TableKey } from './table-schema';

export interface Page<T> {
  items: T[];
  nextToken?: string;
}

/** `next_token` is the opaque base64url form of DynamoDB's LastEvaluatedKey. */
export function encodeNextToken(lastKey: Record<string, unknown> | undefined): string | undefined {
  return lastKey ? Buffer.from(JSON.stringify(lastKey)).toString('base64url') : undefined;
}

/**
 * Decodes a client's `next_token` and checks it points into the partition being listed, so a forged
 * token can neither read another partition nor make DynamoDB fail with a 500.
 */
export function decodeNextToken(
  token: string | undefined,
  partition: TableKey['pk'],
  skPrefix: string,
): TableKey | undefined {
  if (token === undefined) return undefined;
  try {
    const key = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<TableKey>;
    if (key.pk === partition && typeof key.sk === 'string' && key.sk.startsWith(skPrefix)) {
      return { pk: key.pk, sk: key.sk };
    }
  } catch {
    // fall through to the validation error
  }
  throw new ValidationError('query.next_token: is not a token this list returned');
}
