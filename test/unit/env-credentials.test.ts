import { afterEach, describe, expect, it } from 'vitest';
import { defaultProvider } from '../../functions/shared/env-credentials';

const NAMES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_CREDENTIAL_EXPIRATION',
];
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));

function setEnv(values: Record<string, string | undefined>) {
  for (const name of NAMES) {
    const value = values[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

afterEach(() => setEnv(saved));

/** The provider bundles use in place of the SDK's default chain (lib/bundling.ts BUNDLE_ALIASES). */
describe('the bundles’ credential provider', () => {
  it('reads the environment once and keeps what it read', async () => {
    setEnv({
      AWS_ACCESS_KEY_ID: 'AKIDFIRST',
      AWS_SECRET_ACCESS_KEY: 'secret-1',
      AWS_SESSION_TOKEN: 'token-1',
    });
    const provider = defaultProvider();
    const first = await provider();
    expect(first).toMatchObject({
      accessKeyId: 'AKIDFIRST',
      secretAccessKey: 'secret-1',
      sessionToken: 'token-1',
    });
    setEnv({ AWS_ACCESS_KEY_ID: 'AKIDSECOND', AWS_SECRET_ACCESS_KEY: 'secret-2' });
    expect(await provider()).toBe(first);
    expect(await provider({ forceRefresh: true })).toMatchObject({ accessKeyId: 'AKIDSECOND' });
  });

  it('reads again when the credentials expire within five minutes', async () => {
    const soon = new Date(Date.now() + 60_000).toISOString();
    setEnv({
      AWS_ACCESS_KEY_ID: 'AKIDFIRST',
      AWS_SECRET_ACCESS_KEY: 'secret-1',
      AWS_CREDENTIAL_EXPIRATION: soon,
    });
    const provider = defaultProvider();
    expect(await provider()).toMatchObject({ accessKeyId: 'AKIDFIRST' });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    setEnv({
      AWS_ACCESS_KEY_ID: 'AKIDSECOND',
      AWS_SECRET_ACCESS_KEY: 'secret-2',
      AWS_CREDENTIAL_EXPIRATION: later,
    });
    const refreshed = await provider();
    expect(refreshed).toMatchObject({ accessKeyId: 'AKIDSECOND' });
    expect(await provider()).toBe(refreshed);
  });

  it('fails while the environment has no credentials, and succeeds once it has', async () => {
    setEnv({});
    const provider = defaultProvider();
    await expect(provider()).rejects.toThrow('Unable to find environment variable credentials.');
    setEnv({ AWS_ACCESS_KEY_ID: 'AKIDFIRST', AWS_SECRET_ACCESS_KEY: 'secret-1' });
    expect(await provider()).toMatchObject({ accessKeyId: 'AKIDFIRST' });
  });
});
