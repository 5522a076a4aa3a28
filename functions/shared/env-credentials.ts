/**
 * The credential provider of every Lambda bundle: the execution role's credentials from the environment, as
 * Lambda hands them to each function (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
 *
 * Bundling puts this module in place of `@aws-sdk/credential-provider-node` (LAMBDA_BUNDLE.alias in
 * lib/bundling.ts), the SDK's default chain, which every client's runtime config imports: besides the
 * environment it tries SSO, shared config files, credential processes, web identity tokens, the container and
 * instance metadata endpoints, and carries the STS and SSO clients those need. None of that runs on Lambda, yet
 * a bundle with it is about 130 KB larger, and every cold start parses it. Unbundled code (tsx: the tests, the
 * admin tools) keeps the SDK's chain.
 */

interface EnvCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** The chain's signature: the SDK calls it with the client's config and asks the result for credentials. */
export const defaultProvider = (_init?: unknown) => async (): Promise<EnvCredentials> => {
  const {
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: secretAccessKey,
    AWS_SESSION_TOKEN: sessionToken,
    AWS_CREDENTIAL_EXPIRATION: expiration,
  } = process.env;
  if (!accessKeyId || !secretAccessKey) {
    throw new Error(
      'AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set (Lambda sets them from the execution role)',
    );
  }
  return {
    accessKeyId,
    secretAccessKey,
    ...(sessionToken ? { sessionToken } : {}),
    ...(expiration ? { expiration: new Date(expiration) } : {}),
  };
};
