import { fromEnv } from '@aws-sdk/credential-provider-env';

type Credentials = Awaited<ReturnType<ReturnType<typeof fromEnv>>>;

/** Read again this long before they expire (the SDK's default chain does the same). */
const REFRESH_BEFORE_EXPIRY_MS = 300_000;

/**
 * The credential provider of every Lambda bundle: the execution role's credentials from the environment, as
 * Lambda hands them to each function (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), read by
 * the SDK's own `fromEnv`.
 *
 * Bundling puts this module in place of `@aws-sdk/credential-provider-node` (BUNDLE_ALIASES in
 * lib/bundling.ts), the SDK's default chain, which every client's runtime config imports: besides the
 * environment it tries SSO, shared config files, credential processes, web identity tokens, the container and
 * instance metadata endpoints, and carries the STS and SSO clients those need. None of that runs on Lambda, yet
 * a bundle with it is about 130 KB larger, and every cold start parses it. Unbundled code (tsx: the tests, the
 * admin tools) keeps the SDK's chain.
 *
 * Like that chain, it keeps what it read: a client asks its provider before every request, and `fromEnv` alone
 * would read six variables and build new credentials each time. It reads again when asked to refresh, or when
 * the credentials carry an expiry (AWS_CREDENTIAL_EXPIRATION) that is near.
 */
export function defaultProvider(init?: Parameters<typeof fromEnv>[0]) {
  const read = fromEnv(init);
  let credentials: Credentials | undefined;
  return async (options?: { forceRefresh?: boolean }): Promise<Credentials> => {
    const expiresSoon =
      credentials?.expiration !== undefined &&
      credentials.expiration.getTime() - Date.now() < REFRESH_BEFORE_EXPIRY_MS;
    if (!credentials || options?.forceRefresh || expiresSoon) credentials = await read();
    return credentials;
  };
}
