import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signInSource } from '../../functions/domain/driver-auth';
import {
  newLoginToken,
  requireStrongLoginToken,
  tokenStrengthBits,
} from '../../functions/domain/login-tokens';
import { ERROR_CODES } from '../../functions/shared/error-codes';
import { LOGIN_TOKEN_MIN_BITS, LOGIN_TOKEN_MIN_LENGTH } from '../../functions/shared/limits';

const context = { dcId: 'dc-hamburg-north', driverId: 'van-0017', driverName: 'Jane Doe' };
const weak = /^login_token: too easy to guess \(about 2\^\d+ guesses, at least 2\^128 needed\)/;

describe('login token strength (zxcvbn, at least 2^128 guesses)', () => {
  it.each([
    ['a guessable id-like token', 'acme-driver-0001'],
    ['one character repeated', 'a'.repeat(64)],
    ['one character repeated to the longest token', 'a'.repeat(256)],
    ['a short pattern repeated', 'Acme-Driver-0001-'.repeat(4)],
    ['a keyboard walk', 'qwertyuiopasdfghjklzxcvbnm1234567890qwertyuiop'],
    ['a sequence', 'abcdefghijklmnopqrstuvwxyz0123456789abcdefghijkl'],
    ['common passwords run together', 'password123password123letmein12345678qwerty'],
    ['the driver’s own ids and name', 'van-0017-dc-hamburg-north-JaneDoe-van-0017-dc-hamburg-north'],
    ['a random token too short to reach the bound', randomBytes(24).toString('base64url').slice(0, 38)],
    ['a UUID (122 random bits)', '0d9cd6c8-3a4e-4b8f-9e5a-7c1d2b3e4f50'],
    [
      'a random part after 64 characters of pattern',
      `${'ab'.repeat(32)}${randomBytes(32).toString('base64url')}`,
    ],
  ])('refuses %s with 1006 naming login_token', async (_name, token) => {
    const refusal = requireStrongLoginToken(token, context);
    await expect(refusal).rejects.toMatchObject({ code: ERROR_CODES.VALIDATION_FAILED.code });
    await expect(refusal).rejects.toThrow(weak);
  });

  it.each([
    ['32 random bytes in base64url (43 characters)', () => randomBytes(32).toString('base64url')],
    [
      '32 random bytes in base64, as `openssl rand -base64 32` prints them',
      () => randomBytes(32).toString('base64'),
    ],
    ['32 random bytes in hex (64 characters)', () => randomBytes(32).toString('hex')],
    ['a label before 32 random bytes', () => `van-0017-${randomBytes(32).toString('base64url')}`],
  ])('accepts %s', async (_name, make) => {
    for (let i = 0; i < 20; i++)
      await expect(requireStrongLoginToken(make(), context)).resolves.toBeUndefined();
  });

  it('rates the generated tokens (drv_ + 32 random bytes) at 2^128 guesses or more too', async () => {
    for (let i = 0; i < 50; i++) {
      const token = newLoginToken();
      expect(token).toMatch(/^drv_[\w-]{43}$/);
      expect(await tokenStrengthBits(token, context)).toBeGreaterThanOrEqual(LOGIN_TOKEN_MIN_BITS);
    }
  });

  it('credits a character 10 guesses at most, so no token shorter than the schema’s minimum passes', async () => {
    expect(LOGIN_TOKEN_MIN_LENGTH).toBe(39);
    const longest = Array.from({ length: 20 }, () => randomBytes(48).toString('base64url').slice(0, 38));
    for (const token of longest) {
      expect(await tokenStrengthBits(token, context)).toBeLessThanOrEqual(38 * Math.log2(10) + 1e-9);
    }
  });
});

describe('signInSource: what failed sign-ins are counted by', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    [undefined, 'unknown'],
    ['', 'unknown'],
    ['not an address', 'unknown'],
  ])('%s -> %s', (sourceIp, source) => {
    expect(signInSource(sourceIp)).toBe(source);
  });
});
