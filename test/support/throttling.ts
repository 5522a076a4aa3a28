import { expect } from 'vitest';
import { type ApiResponse, expectError } from './http';

/** Resolves with `promise`, or fails once `ms` pass first. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Hammers a throttled method: `clients` clients at once, each sending `request` (its `index`-th) as fast as it
 * gets answers, until one is refused with 429 (within a minute, else the test fails with `notThrottled`); then,
 * while the hammering goes on and takes every token the method's bucket refills, runs `meanwhile`. Stops the
 * clients and answers every answer they got.
 */
export async function hammerUntilThrottled(options: {
  clients: number;
  request: (client: number, index: number) => Promise<ApiResponse>;
  notThrottled: string;
  meanwhile: () => Promise<void>;
}): Promise<ApiResponse[]> {
  const answers: ApiResponse[] = [];
  let hammering = true;
  let throttled: () => void = () => {};
  const sawThrottling = new Promise<void>((resolve) => {
    throttled = resolve;
  });
  const clients = Array.from({ length: options.clients }, async (_, client) => {
    for (let index = 0; hammering; index++) {
      const answer = await options.request(client, index);
      answers.push(answer);
      if (answer.status === 429) throttled();
    }
  });
  try {
    await within(sawThrottling, 60_000, options.notThrottled);
    await options.meanwhile();
  } finally {
    hammering = false;
    await Promise.all(clients);
  }
  return answers;
}

/** A hammering's answers: some refused with 429 (1008), every other one as `served` expects. */
export function expectThrottledAnswers(answers: ApiResponse[], served: (answer: ApiResponse) => void): void {
  const refused = answers.filter((answer) => answer.status === 429);
  expect(refused.length).toBeGreaterThan(0);
  for (const answer of refused) expectError(answer, 429, 1008);
  for (const answer of answers.filter((answer) => answer.status !== 429)) served(answer);
}
