import type { App, Environment } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { EndpointDefinition } from '../functions/api/define';
import { endpoints as allEndpoints } from '../functions/api/index';
import * as channels from '../functions/models/channels';
import type { MessageSenders } from '../functions/shared/access';
import { ACCOUNT_LIMITS } from '../functions/shared/limits';
import { PROOF_RETENTION_DAYS_DEFAULT } from '../functions/shared/resources';
import type { ConsumerDefinition } from '../functions/workers/define';
import { consumers as allConsumers } from '../functions/workers/index';
import { ApiStack } from './api-stack';
import { XRAY_SDK_TRACING_DEFAULT, XRAY_SDK_TRACING_VALUES, type XraySdkTracing } from './bundling';
import { StatefulStack } from './stateful-stack';

/** Deployment settings, read from CDK context (`cdk deploy -c throttlingRateLimit=200`) with defaults. */
export interface DeliveryRoutesConfig {
  readonly env?: Environment;
  readonly stackPrefix: string;
  readonly stageName: string;
  /** The API's base URL when a custom domain serves the stage (`-c apiUrl=https://api.example.com/`). */
  readonly apiUrl?: string;
  readonly throttlingRateLimit: number;
  readonly throttlingBurstLimit: number;
  /** Each account's steady requests per second on the account-key methods (the usage plan's throttle). */
  readonly accountThrottlingRateLimit: number;
  /** Each account's burst (token bucket size) on the account-key methods. */
  readonly accountThrottlingBurstLimit: number;
  /** Webhooks an account may have at once (MAX_WEBHOOKS_PER_ACCOUNT of the webhook create function). */
  readonly maxWebhooksPerAccount: number;
  readonly logRetention: RetentionDays;
  /** Subscribed by email to the alarm topic when given (`-c alarmEmail=ops@example.com`). */
  readonly alarmEmail?: string;
  /**
   * Seconds to wait before each retry of a failed webhook delivery (`-c webhookRetryDelaysSeconds=60,300`).
   * @default the delivery worker's own schedule (docs/api.md §7: about 1, 5, 15, 30 minutes, then hourly, 8 hours)
   */
  readonly webhookRetryDelaysSeconds?: readonly number[];
  /**
   * Whether this app sets API Gateway's account-level CloudWatch role (`AWS::ApiGateway::Account`), which the
   * stage's access logging needs. `-c apiGatewayAccountRole=false` leaves it to whoever manages it in the
   * account (it is one setting per account and Region); the account must then have one before the deploy.
   */
  readonly apiGatewayAccountRole: boolean;
  /** Days the bucket keeps proofs of delivery and delivery notes (`-c proofRetentionDays=730`). */
  readonly proofRetentionDays: number;
  /** Which functions bundle the X-Ray SDK (`-c xraySdkTracing=all`); see XraySdkTracing in lib/bundling.ts. */
  readonly xraySdkTracing: XraySdkTracing;
  /**
   * The senders of customer messages (docs/configuration.md): `-c notificationEmailIdentity=example.com
   * -c notificationEmailFrom=deliveries@example.com [-c notificationEmailConfigurationSet=...]` for email,
   * `-c notificationSmsOriginationIdentity=phone-... [-c notificationSmsConfigurationSet=...]` for SMS. A
   * channel without them is not sent.
   */
  readonly messageSenders: MessageSenders;
}

export const DEFAULT_CONFIG = {
  stackPrefix: 'DeliveryRoutes',
  stageName: 'v1',
  throttlingRateLimit: 100,
  throttlingBurstLimit: 200,
  accountThrottlingRateLimit: ACCOUNT_LIMITS.throttlingRateLimit,
  accountThrottlingBurstLimit: ACCOUNT_LIMITS.throttlingBurstLimit,
  maxWebhooksPerAccount: ACCOUNT_LIMITS.webhooks,
  logRetention: RetentionDays.ONE_MONTH,
  apiGatewayAccountRole: true,
  xraySdkTracing: XRAY_SDK_TRACING_DEFAULT,
  proofRetentionDays: PROOF_RETENTION_DAYS_DEFAULT,
  messageSenders: {},
} as const satisfies DeliveryRoutesConfig;

/** Reads the config from the app's context and the CLI's CDK_DEFAULT_ACCOUNT/REGION. */
export function readConfig(app: App): DeliveryRoutesConfig {
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = process.env.CDK_DEFAULT_REGION;
  return {
    env: account || region ? { account, region } : undefined,
    stackPrefix: stringContext(app, 'stackPrefix') ?? DEFAULT_CONFIG.stackPrefix,
    stageName: stringContext(app, 'stageName') ?? DEFAULT_CONFIG.stageName,
    apiUrl: httpsUrlContext(app, 'apiUrl'),
    throttlingRateLimit: numberContext(app, 'throttlingRateLimit') ?? DEFAULT_CONFIG.throttlingRateLimit,
    throttlingBurstLimit: numberContext(app, 'throttlingBurstLimit') ?? DEFAULT_CONFIG.throttlingBurstLimit,
    accountThrottlingRateLimit:
      numberContext(app, 'accountThrottlingRateLimit') ?? DEFAULT_CONFIG.accountThrottlingRateLimit,
    accountThrottlingBurstLimit:
      wholeNumberContext(app, 'accountThrottlingBurstLimit') ?? DEFAULT_CONFIG.accountThrottlingBurstLimit,
    maxWebhooksPerAccount:
      maxWebhooksContext(app, 'maxWebhooksPerAccount') ?? DEFAULT_CONFIG.maxWebhooksPerAccount,
    logRetention: retentionContext(app, 'logRetentionDays') ?? DEFAULT_CONFIG.logRetention,
    alarmEmail: emailContext(app, 'alarmEmail'),
    webhookRetryDelaysSeconds: secondsListContext(app, 'webhookRetryDelaysSeconds'),
    apiGatewayAccountRole:
      booleanContext(app, 'apiGatewayAccountRole') ?? DEFAULT_CONFIG.apiGatewayAccountRole,
    xraySdkTracing: xraySdkTracingContext(app, 'xraySdkTracing') ?? DEFAULT_CONFIG.xraySdkTracing,
    proofRetentionDays:
      positiveWholeNumberContext(app, 'proofRetentionDays') ?? DEFAULT_CONFIG.proofRetentionDays,
    messageSenders: messageSendersContext(app),
  };
}

function messageSendersContext(app: App): MessageSenders {
  const identity = stringContext(app, 'notificationEmailIdentity');
  const from = emailContext(app, 'notificationEmailFrom') ?? (identity?.includes('@') ? identity : undefined);
  const emailSet = stringContext(app, 'notificationEmailConfigurationSet');
  const origination = stringContext(app, 'notificationSmsOriginationIdentity');
  const smsSet = stringContext(app, 'notificationSmsConfigurationSet');
  if (identity && !from)
    throw new Error('context notificationEmailFrom must be given with a domain notificationEmailIdentity');
  if (from && !identity)
    throw new Error(
      'context notificationEmailFrom needs notificationEmailIdentity (the SES identity it sends as)',
    );
  return {
    ...(identity && from
      ? { email: { identity, from, ...(emailSet ? { configurationSet: emailSet } : {}) } }
      : {}),
    ...(origination
      ? { sms: { originationIdentity: origination, ...(smsSet ? { configurationSet: smsSet } : {}) } }
      : {}),
  };
}

export interface DeliveryRoutes {
  readonly stateful: StatefulStack;
  readonly api: ApiStack;
}

/**
 * Adds the service's stacks to the app: the stateful one (table, bucket, queues) and the API (endpoint
 * functions and queue consumers).
 */
export function defineDeliveryRoutes(
  app: App,
  config: DeliveryRoutesConfig,
  endpoints: readonly EndpointDefinition[] = allEndpoints,
  consumers: readonly ConsumerDefinition[] = allConsumers,
): DeliveryRoutes {
  const stateful = new StatefulStack(app, `${config.stackPrefix}-Stateful`, {
    env: config.env,
    description: 'Delivery Route Service: table, bucket, queues and alarm topic (retained data)',
    alarmEmail: config.alarmEmail,
    proofRetentionDays: config.proofRetentionDays,
    emailConfigurationSet: config.messageSenders.email?.configurationSet,
  });
  const api = new ApiStack(app, `${config.stackPrefix}-Api`, {
    env: config.env,
    description: 'Delivery Route Service: REST API, authorizers, endpoint functions and queue consumers',
    stateful: stateful.exports,
    endpoints,
    consumers: withMessageSenders(withDeliverySettings(consumers, config), config.messageSenders),
    stageName: config.stageName,
    apiUrl: config.apiUrl,
    throttlingRateLimit: config.throttlingRateLimit,
    throttlingBurstLimit: config.throttlingBurstLimit,
    accountThrottling: {
      rateLimit: config.accountThrottlingRateLimit,
      burstLimit: config.accountThrottlingBurstLimit,
    },
    maxWebhooksPerAccount: config.maxWebhooksPerAccount,
    logRetention: config.logRetention,
    apiGatewayAccountRole: config.apiGatewayAccountRole,
    xraySdkTracing: config.xraySdkTracing,
  });
  api.addStackDependency(stateful, 'imports the table, bucket and queue exports');
  return { stateful, api };
}

/** The consumers, those that send customer messages with the configured senders. */
function withMessageSenders(
  consumers: readonly ConsumerDefinition[],
  senders: MessageSenders,
): ConsumerDefinition[] {
  return consumers.map((consumer) =>
    consumer.access.customerMessages
      ? { ...consumer, access: { ...consumer.access, customerMessages: senders } }
      : consumer,
  );
}

/** The consumers, the webhook delivery worker (the deliveries queue's) with the configured retry schedule. */
function withDeliverySettings(
  consumers: readonly ConsumerDefinition[],
  config: DeliveryRoutesConfig,
): ConsumerDefinition[] {
  const delays = config.webhookRetryDelaysSeconds;
  return consumers.map((consumer) =>
    consumer.queue === channels.deliveries && delays
      ? {
          ...consumer,
          environment: { ...consumer.environment, WEBHOOK_RETRY_DELAYS_SECONDS: delays.join(',') },
        }
      : consumer,
  );
}

function stringContext(app: App, key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  return String(value);
}

function emailContext(app: App, key: string): string | undefined {
  const text = stringContext(app, key);
  if (text !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) {
    throw new Error(`context ${key} must be an email address, got '${text}'`);
  }
  return text;
}

/** An https URL without credentials, query or fragment: a base URL links are made under. */
function httpsUrlContext(app: App, key: string): string | undefined {
  const text = stringContext(app, key);
  if (text === undefined) return undefined;
  const url = URL.parse(text);
  if (url?.protocol !== 'https:' || url.username || url.password || url.search || url.hash)
    throw new Error(
      `context ${key} must be an https URL without credentials, query or fragment, got '${text}'`,
    );
  return text;
}

function booleanContext(app: App, key: string): boolean | undefined {
  const text = stringContext(app, key);
  if (text === undefined) return undefined;
  if (text !== 'true' && text !== 'false')
    throw new Error(`context ${key} must be true or false, got '${text}'`);
  return text === 'true';
}

function xraySdkTracingContext(app: App, key: string): XraySdkTracing | undefined {
  const text = stringContext(app, key);
  if (text === undefined) return undefined;
  if (!(XRAY_SDK_TRACING_VALUES as readonly string[]).includes(text))
    throw new Error(`context ${key} must be one of ${XRAY_SDK_TRACING_VALUES.join(', ')}, got '${text}'`);
  return text as XraySdkTracing;
}

/** Context given on the command line arrives as a string; in cdk.json as a number. */
function numberContext(app: App, key: string): number | undefined {
  const text = stringContext(app, key);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`context ${key} must be a number >= 0, got '${text}'`);
  return value;
}

/** A whole number >= 0 (API Gateway's burst limits are integers). */
function wholeNumberContext(app: App, key: string): number | undefined {
  const value = numberContext(app, key);
  if (value !== undefined && !Number.isInteger(value))
    throw new Error(`context ${key} must be a whole number >= 0, got '${value}'`);
  return value;
}

/** A whole number >= 1 (an S3 expiration is at least a day). */
function positiveWholeNumberContext(app: App, key: string): number | undefined {
  const value = wholeNumberContext(app, key);
  if (value === 0) throw new Error(`context ${key} must be a whole number >= 1, got 0`);
  return value;
}

/** 1..ACCOUNT_LIMITS.maxWebhooks: a webhook create transaction writes one item per event type besides. */
function maxWebhooksContext(app: App, key: string): number | undefined {
  const value = wholeNumberContext(app, key);
  if (value !== undefined && (value < 1 || value > ACCOUNT_LIMITS.maxWebhooks))
    throw new Error(`context ${key} must be 1..${ACCOUNT_LIMITS.maxWebhooks}, got ${value}`);
  return value;
}

/** Comma-separated seconds, each a whole number from 0 to 86,400. */
function secondsListContext(app: App, key: string): number[] | undefined {
  const text = stringContext(app, key);
  if (text === undefined) return undefined;
  const seconds = text.split(',').map((part) => Number(part.trim()));
  if (seconds.some((value) => !Number.isInteger(value) || value < 0 || value > 86_400)) {
    throw new Error(`context ${key} must be comma-separated whole seconds (0..86400), got '${text}'`);
  }
  return seconds;
}

function retentionContext(app: App, key: string): RetentionDays | undefined {
  const days = numberContext(app, key);
  if (days === undefined) return undefined;
  const allowed = Object.values(RetentionDays).filter((v): v is number => typeof v === 'number');
  if (!allowed.includes(days)) {
    throw new Error(
      `context ${key} must be one of CloudWatch's retention periods (${allowed.join(', ')}), got ${days}`,
    );
  }
  return days as RetentionDays;
}
