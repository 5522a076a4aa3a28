import type { Channel } from './channel';
import { RESOURCE_ENV } from './resources';

/**
 * The service's configuration, read from the environment on first use, never at import: importing any module
 * of functions/ needs no variable set, and a function reads only the variables of what it uses. CDK (and the
 * local runtime from the same template) gives each function only the variables of its grants, so a required
 * one missing fails loudly at its first use, with an error naming it.
 *
 * Tests, the bench and the operator tools point the service's code at a deployment with `configure` instead of
 * writing process.env before importing it.
 */
export interface ServiceConfig {
  /** TABLE_NAME (required on use). */
  readonly tableName: string;
  /** BUCKET_NAME, set only where the bucket is granted (required on use). */
  readonly bucketName: string;
  /** LINK_SIGNER_ROLE_ARN: the role presigned links are signed with (required on use). */
  readonly linkSignerRoleArn: string;
  /** WEBHOOK_SECRETS_KEY_ARN: the KMS key webhook secrets are sealed under (required on use). */
  readonly webhookSecretsKeyArn: string;
  /** API_URL: the API's own base URL, which links to it start with (required on use). */
  readonly apiUrl: string;
  /** PROOF_RETENTION_DAYS: the days the bucket keeps proofs and delivery notes (required on use). */
  readonly proofRetentionDays: number;
  /** The channel's queue URL, from its `urlEnv` variable (required on use). */
  queueUrl(channel: Channel): string;
  /** The channel's DLQ URL, from its `deadLetterUrlEnv` variable (required on use). */
  deadLetterQueueUrl(channel: Channel): string;
  /** USAGE_PLAN_ID: the API stack's usage plan accounts' keys belong to (operator only). */
  readonly usagePlanId: string | undefined;
  /** AWS_LAMBDA_FUNCTION_NAME, which Lambda sets. */
  readonly functionName: string | undefined;
  /** S3_FORCE_PATH_STYLE=true: path-style S3 URLs (the local S3 emulator). */
  readonly s3ForcePathStyle: boolean;
  /** ROUTE_DELETION_ROWS_PER_MESSAGE (default 20,000). */
  readonly routeDeletionRowsPerMessage: number;
  /** ANALYTICS_ROWS_PER_FILE (default 1,000,000). */
  readonly analyticsRowsPerFile: number;
  /** IMPORT_UPLOAD_LINK_SECONDS (default 15 minutes). */
  readonly importUploadLinkSeconds: number;
  /** IMPORT_UPLOAD_ARRIVAL_GRACE_SECONDS (default 15 minutes). */
  readonly importUploadArrivalGraceSeconds: number;
  /** IMPORT_DEADLINE_SECONDS (default 6 hours): how long an accepted import may stay pending. */
  readonly importDeadlineSeconds: number;
  /** The variables themselves, for settings parsed where they are used (webhook delivery, limits). */
  readonly environment: Environment;
}

export type Environment = Readonly<Record<string, string | undefined>>;

/** The AWS services whose clients the service makes, as the SDK's AWS_ENDPOINT_URL_<SERVICE> names them. */
export type AwsService =
  | 'DYNAMODB'
  | 'SQS'
  | 'S3'
  | 'STS'
  | 'KMS'
  | 'API_GATEWAY'
  | 'SESV2'
  | 'PINPOINT_SMS_VOICE_V2';

let overrides: Environment | undefined;
let current: ServiceConfig | undefined;

/** The configuration: the environment as it is at the first call (with `configure`'s overrides), kept. */
export function config(): ServiceConfig {
  current ??= readConfig({ ...process.env, ...overrides });
  return current;
}

/**
 * Replaces variables of the environment the configuration is read from (an undefined value removes one), for
 * tests, the bench and the operator tools: e.g. the local runtime's operator environment. AWS SDK settings among
 * them (AWS_REGION, AWS_ENDPOINT_URL_<SERVICE>, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) are passed to the
 * clients the service makes afterwards (`awsClientOptions`); process.env is left as it is.
 */
export function configure(environment: Environment): void {
  overrides = { ...environment };
  current = undefined;
}

/** Forgets `configure`'s overrides and what was read: the next `config()` reads process.env again. */
export function resetConfig(): void {
  overrides = undefined;
  current = undefined;
}

/** The endpoint `env` names for `service`, as the SDK reads it: AWS_ENDPOINT_URL_<SERVICE>, else AWS_ENDPOINT_URL. */
export function awsEndpointIn(env: Environment, service: AwsService): string | undefined {
  return env[`AWS_ENDPOINT_URL_${service}`] ?? env.AWS_ENDPOINT_URL;
}

/**
 * What a client of `service` is given explicitly: only the SDK settings `configure` overrode. Without them
 * (on Lambda) the SDK reads its region, endpoint and credentials from the environment itself.
 */
export function awsClientOptions(service: AwsService): {
  region?: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
} {
  const env = overrides ?? {};
  const endpoint = awsEndpointIn(env, service);
  const { AWS_REGION: region, AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env;
  return {
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
    ...(accessKeyId && secretAccessKey
      ? { credentials: { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN } }
      : {}),
  };
}

/**
 * A value made once per configuration (an SDK client): made on first use, and again after `configure` or
 * `resetConfig`, so a client follows the configuration it was made for.
 */
export function perConfig<T>(make: () => T): () => T {
  let made: { value: T; config: ServiceConfig } | undefined;
  return () => {
    const now = config();
    if (made?.config !== now) made = { value: make(), config: now };
    return made.value;
  };
}

function readConfig(env: Environment): ServiceConfig {
  const required = (name: string): string => {
    const value = env[name];
    if (!value) throw new Error(`environment variable ${name} is not set`);
    return value;
  };
  return {
    get tableName() {
      return required(RESOURCE_ENV.table);
    },
    get bucketName() {
      return required(RESOURCE_ENV.bucket);
    },
    get linkSignerRoleArn() {
      return required(RESOURCE_ENV.linkSignerRoleArn);
    },
    get webhookSecretsKeyArn() {
      return required(RESOURCE_ENV.webhookSecretsKeyArn);
    },
    get apiUrl() {
      return required(RESOURCE_ENV.apiUrl);
    },
    get proofRetentionDays() {
      const text = required(RESOURCE_ENV.proofRetentionDays);
      const days = Number(text);
      if (!Number.isInteger(days) || days < 1)
        throw new Error(
          `environment variable ${RESOURCE_ENV.proofRetentionDays} must be a whole number >= 1, got '${text}'`,
        );
      return days;
    },
    queueUrl: (channel) => required(channel.urlEnv),
    deadLetterQueueUrl: (channel) => required(channel.deadLetterUrlEnv),
    usagePlanId: env.USAGE_PLAN_ID || undefined,
    functionName: env.AWS_LAMBDA_FUNCTION_NAME || undefined,
    s3ForcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
    routeDeletionRowsPerMessage: Number(env.ROUTE_DELETION_ROWS_PER_MESSAGE ?? 20_000),
    analyticsRowsPerFile: Number(env.ANALYTICS_ROWS_PER_FILE ?? 1_000_000),
    importUploadLinkSeconds: Number(env.IMPORT_UPLOAD_LINK_SECONDS ?? 15 * 60),
    importUploadArrivalGraceSeconds: Number(env.IMPORT_UPLOAD_ARRIVAL_GRACE_SECONDS ?? 15 * 60),
    importDeadlineSeconds: Number(env.IMPORT_DEADLINE_SECONDS ?? 6 * 3600),
    environment: env,
  };
}
