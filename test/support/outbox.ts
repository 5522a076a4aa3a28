import { expect } from 'vitest';
import type { OutboxMessage } from '../../local/aws-proxy/outbox';

export type { OutboxMessage };

/** The local outbox, newest last (not an API operation: a plain GET of the local runtime's own route). */
export async function readOutbox(apiUrl: string): Promise<OutboxMessage[]> {
  const response = await fetch(`${apiUrl}/_local/outbox`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { messages: OutboxMessage[] }).messages;
}
