import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * The credential provider of every Lambda bundle: the execution role's credentials from the environment, as
 * Lambda hands them to each function (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), read by
 * the SDK's own `fromEnv`.
 *
 * Bundling puts this module in place of `@aws-sdk/credential-provider-node` (LAMBDA_BUNDLE.alias in
 * lib/bundling.ts), the SDK's default chain, which every client's runtime config imports: besides the
 * environment it tries SSO, shared config files, credential processes, web identity tokens, the container and
 * instance metadata endpoints, and carries the STS and SSO clients those need. None of that runs on Lambda, yet
 * a bundle with it is about 130 KB larger, and every cold start parses it. Unbundled code (tsx: the tests, the
 * admin tools) keeps the SDK's chain.
 */
export const defaultProvider = (init?: Parameters<typeof fromEnv>[0]) => fromEnv(init);
