import { describe, expect, it } from 'vitest';
import { newTrackingKey } from '../../functions/models/tracking-links';
import {
  ADDRESS_KEY_PATTERN,
  isAddressKeyOf,
  unsubscribeAddressKey,
  unsubscribeUrl,
} from '../../functions/models/unsubscribe-links';

describe('unsubscribe links', () => {
  const key = newTrackingKey();
  const email = 'dana.customer@example.com';

  it('names the address by a 128-bit key that does not show it', () => {
    const addressKey = unsubscribeAddressKey(key, email);
    expect(addressKey).toMatch(ADDRESS_KEY_PATTERN);
    expect(addressKey).not.toContain('dana');
    expect(unsubscribeUrl('https://t.example/track/abc', addressKey)).toBe(
      `https://t.example/track/abc/unsubscribe/${addressKey}`,
    );
  });

  it('gives the same key for the address however it is cased or padded, on the same route', () => {
    const addressKey = unsubscribeAddressKey(key, email);
    expect(unsubscribeAddressKey(key, ' Dana.Customer@EXAMPLE.com ')).toBe(addressKey);
    expect(isAddressKeyOf(key, 'DANA.customer@example.com', addressKey)).toBe(true);
  });

  it('gives another key for another address, and for the same address on another route', () => {
    const addressKey = unsubscribeAddressKey(key, email);
    expect(unsubscribeAddressKey(key, 'lou@example.com')).not.toBe(addressKey);
    expect(unsubscribeAddressKey(newTrackingKey(), email)).not.toBe(addressKey);
    expect(isAddressKeyOf(key, 'lou@example.com', addressKey)).toBe(false);
    expect(isAddressKeyOf(newTrackingKey(), email, addressKey)).toBe(false);
  });

  it('takes no key of another form: altered, cut, lengthened or empty', () => {
    const addressKey = unsubscribeAddressKey(key, email);
    const altered = `${addressKey.slice(0, 21)}${addressKey.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [altered, addressKey.slice(0, 21), `${addressKey}A`, '', `${addressKey.slice(0, 21)}=`])
      expect(isAddressKeyOf(key, email, bad), bad).toBe(false);
  });
});
