import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { randomSecret, SECRET_PREFIX } from '../shared/crypto';
import { ValidationError } from '../shared/errors';
import { LOGIN_TOKEN_MIN_BITS } from '../shared/limits';

/**
 * The characters of a token the estimate reads, its first ones (zxcvbn's `maxLength`): its matching grows
 * with the square of the length (a 256-character token takes 250 ms to 1 s of CPU), and 64 characters at
 * zxcvbn's 10 guesses each can reach 2^212, far past the bound. A longer token must reach it within them.
 */
const EXAMINED_CHARACTERS = 64;

let estimator: Promise<ZxcvbnFactory> | undefined;

/**
 * zxcvbn with its language-independent data (common passwords, diceware words, keyboard layouts), loaded on
 * first use: only the driver create and update functions need it, and only when a client chooses a token,
 * so it is a chunk of their bundles that no cold start reads.
 */
function zxcvbn(): Promise<ZxcvbnFactory> {
  estimator ??= Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common')]).then(
    ([{ ZxcvbnFactory }, common]) =>
      new ZxcvbnFactory({
        dictionary: common.dictionary,
        graphs: common.adjacencyGraphs,
        maxLength: EXAMINED_CHARACTERS,
      }),
  );
  return estimator;
}

/** Where the token will be used: words of it an attacker would try first, as zxcvbn's user inputs. */
export interface TokenContext {
  dcId: string;
  driverId: string;
  driverName?: string;
}

/**
 * How many bits an attacker's guessing needs, by zxcvbn's estimate (log2 of its guesses): it finds the
 * cheapest way to build the token from what guessers try first (common passwords, words, the driver's own
 * ids and name, keyboard walks, repeats, sequences, dates, l33t) and counts every other character as 10
 * guesses, fewer than any alphabet a random token is drawn from, so a random token is never overrated.
 */
export async function tokenStrengthBits(token: string, context: TokenContext): Promise<number> {
  const inputs = [context.dcId, context.driverId, ...(context.driverName ? [context.driverName] : [])];
  const { guessesLog10 } = (await zxcvbn()).check(token, inputs);
  return guessesLog10 * Math.log2(10);
}

/**
 * 1006 naming `login_token` unless a client-chosen token is at least LOGIN_TOKEN_MIN_BITS strong. Checked
 * before the token is looked up, so whether a weak token is in use is never told (2002).
 */
export async function requireStrongLoginToken(token: string, context: TokenContext): Promise<void> {
  const bits = await tokenStrengthBits(token, context);
  if (bits >= LOGIN_TOKEN_MIN_BITS) return;
  throw new ValidationError(
    `login_token: too easy to guess (about 2^${Math.floor(bits)} guesses, at least 2^${LOGIN_TOKEN_MIN_BITS} needed): use 32 random bytes or more (43 characters in base64url), or leave login_token out to have one generated`,
  );
}

/** A generated login token: `drv_` + 43 base64url characters of 32 CSPRNG bytes (256 bits). */
export const newLoginToken = (): string => randomSecret(SECRET_PREFIX.driverToken);
