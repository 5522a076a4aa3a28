import {
  ArnFormat,
  AssetHashType,
  type BundlingOptions,
  type CfnResource,
  DockerImage,
  Duration,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ArnPrincipal, Effect, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { LinkSigning, MessageSenders, ResourceAccess, TableAccess } from '../../functions/shared/access';
import type { Channel } from '../../functions/shared/channel';
import {
  PROOFS_PREFIX,
  RECIPIENT_CONTEXT_KEYS,
  RESOURCE_ENV,
  STOP_PIN_CONTEXT_KEYS,
  WEBHOOK_SECRET_CONTEXT_KEYS,
} from '../../functions/shared/resources';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../../functions/shared/service-identity';
import {
  BUNDLE_METADATA_KEY,
  buildFunctionAssetSync,
  bundleDefine,
  checkBundledFiles,
  type FunctionAsset,
  HANDLER,
  LAMBDA_ESBUILD_OPTIONS,
  REPO_ROOT,
} from '../bundling';
import type { Slice } from '../slices';
import { alarmOn, WATCHES } from '../watches';
import type { ServiceResources } from './stateful-imports';

export type BucketAccess = NonNullable<ResourceAccess['bucket']>;

/**
 * The S3 actions each bucket access allows, on objects only (no List, no Delete, no bucket actions). Writing
 * includes aborting a multipart upload: the SDK's streaming upload aborts its own upload when a part fails,
 * and without the grant the parts would stay (billed) until the bucket's lifecycle rule removes them.
 */
const BUCKET_ACTIONS: Record<BucketAccess, readonly string[]> = {
  read: ['s3:GetObject'],
  write: ['s3:PutObject', 's3:AbortMultipartUpload'],
};

/**
 * The one KMS action each use of the webhook secrets key allows (for webhook secrets or stop PINs alike):
 * making new ones, or reading them.
 */
const SECRETS_KEY_ACTIONS: Record<NonNullable<ResourceAccess['webhookSecrets']>, string> = {
  encrypt: 'kms:GenerateDataKey',
  decrypt: 'kms:Decrypt',
};

const sesArn = (scope: Construct, resource: string) =>
  Stack.of(scope).formatArn({ service: 'ses', resource, arnFormat: ArnFormat.NO_RESOURCE_NAME });
const smsArn = (scope: Construct, resource: string) =>
  Stack.of(scope).formatArn({ service: 'sms-voice', resource, arnFormat: ArnFormat.NO_RESOURCE_NAME });

/** An End User Messaging SMS origination identity's ARN: given as one, or a pool's or a phone number's id. */
export function originationIdentityArn(scope: Construct, identity: string): string {
  if (identity.startsWith('arn:')) return identity;
  return smsArn(scope, identity.startsWith('pool-') ? `pool/${identity}` : `phone-number/${identity}`);
}

/** What a presigned link of each kind does: a download GETs one object, an upload PUTs one (no multipart). */
const LINK_SIGNERS: Record<LinkSigning['access'], { id: string; action: string }> = {
  read: { id: 'DownloadLinkSignerRole', action: 's3:GetObject' },
  write: { id: 'UploadLinkSignerRole', action: 's3:PutObject' },
};

/** A function's memory (MB) unless it sets its own: the endpoints' and the authorizers'. */
export const DEFAULT_MEMORY_SIZE_MB = 1024;

export interface ServiceFunctionProps {
  /** Where the function's code is: its slice (lib/slices.ts), found from its row module. */
  readonly slice: Slice;
  readonly description?: string;
  /** @default 10 seconds (API Gateway gives up after 29 s; an endpoint should answer well before). */
  readonly timeout?: Duration;
  /** @default DEFAULT_MEMORY_SIZE_MB */
  readonly memorySize?: number;
  /** Merged over the shared defaults. */
  readonly environment?: Record<string, string>;
  /** @default one month */
  readonly logRetention?: RetentionDays;
  /**
   * The function's NODE_OPTIONS (V8 flags), where the defaults do not fit. None by default: in particular no
   * --enable-source-maps, which costs every cold start (see SOURCE_MAPS_NODE_OPTION in lib/bundling.ts).
   */
  readonly nodeOptions?: string;
  /**
   * Files copied from the repository's node_modules into the asset's node_modules, for a handler that reads
   * them at run time instead of bundling them (see EndpointDefinition.bundledFiles).
   */
  readonly bundledFiles?: readonly string[];
  /**
   * Bundle the X-Ray SDK (Powertools Tracer): the handler's segment gets its annotations and every AWS call a
   * subsegment, at 20-35 ms of each cold start. Without it Lambda's active tracing still records the
   * function's initialisation and invocation (lib/bundling.ts, XraySdkTracing).
   * @default false
   */
  readonly xraySdk?: boolean;
}

/**
 * A Lambda function with the defaults every function of the service shares: Node.js 22 on ARM, an ESM
 * bundle with its lazily loaded chunks (AWS SDK included, see lib/bundling.ts) built by the repository's
 * esbuild (no Docker), active X-Ray tracing (the X-Ray SDK only with `xraySdk`), and its own log group with
 * retention.
 *
 * The role is created here rather than by the Function so that it gets no AWS managed policy: the function
 * may write to its own log group only (instead of AWSLambdaBasicExecutionRole's logs:* on every group).
 */
export class ServiceFunction extends LambdaFunction {
  /** The slice's readable name, e.g. `drivers/finish-routes`. */
  readonly sliceName: string;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}LogGroup`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
    });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${props.slice.name}`,
    });

    const asset: FunctionAsset = {
      entry: props.slice.repoEntry,
      define: bundleDefine({ xraySdk: props.xraySdk ?? false, entry: props.slice.repoEntry }),
      bundledFiles: props.bundledFiles ?? [],
    };
    checkBundledFiles(asset.bundledFiles);
    super(scope, id, {
      code: Code.fromAsset(REPO_ROOT, {
        // The asset's hash is its content's: a deploy updates exactly the functions whose bundle changed.
        assetHashType: AssetHashType.OUTPUT,
        bundling: new LocalBundling(asset),
      }),
      handler: HANDLER,
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? DEFAULT_MEMORY_SIZE_MB,
      timeout: props.timeout ?? Duration.seconds(10),
      role,
      logGroup,
      tracing: Tracing.ACTIVE,
      environment: {
        ...(props.nodeOptions ? { NODE_OPTIONS: props.nodeOptions } : {}),
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        ...props.environment,
      },
    });

    this.sliceName = props.slice.name;
    // What the asset is built from, for the local runtime, which runs the same bundle.
    (this.node.defaultChild as CfnResource).addMetadata(BUNDLE_METADATA_KEY, asset);
    logGroup.grantWrite(role);
    // Tracing: ACTIVE adds xray:PutTraceSegments/PutTelemetryRecords on '*' to this role.
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
    });
  }

  /**
   * Alarms when Lambda throttles any invocation of this function: the account's concurrency is used up, or a
   * reserved limit is too low. Requests then fail (API) or wait (queues) although nothing is broken.
   */
  alarmOnThrottles(topic: ITopic): Alarm {
    return alarmOn(this, 'ThrottlesAlarm', WATCHES.functionThrottles, this, {
      description: `Lambda throttled invocations of ${this.sliceName}`,
      topic,
    });
  }

  /**
   * Grants everything `access` names and nothing else, and sets the matching environment variables.
   * Endpoint functions and queue consumers alike get their permissions through here.
   */
  bindAccess(access: ResourceAccess, resources: ServiceResources): void {
    if (access.table) this.bindTable(resources.table, access.table);
    if (access.tableInserts)
      this.addToRolePolicy(
        new PolicyStatement({ actions: ['dynamodb:PartiQLInsert'], resources: [resources.table.tableArn] }),
      );
    if (access.bucket) {
      if (!access.bucketKeyPrefixes?.length)
        throw new Error(
          `${this.sliceName}: bucket access names the key prefixes it is for (bucketKeyPrefixes)`,
        );
      for (const prefix of access.bucketKeyPrefixes)
        this.bindBucket(resources.bucket, access.bucket, resources.bucketObjectsArn(prefix));
    }
    if (access.bucketWriteKeyPrefix) {
      const objects = resources.bucketObjectsArn(access.bucketWriteKeyPrefix);
      this.bindBucket(resources.bucket, 'write', objects);
    }
    if (access.signLinks) {
      const objects = resources.bucketObjectsArn(access.signLinks.keyPrefix);
      this.bindLinkSigner(resources.bucket, access.signLinks, objects);
    }
    // A function that reaches proofs (or the delivery notes among them) keeps their records as long as the
    // bucket keeps the objects.
    const prefixes = [
      ...(access.bucket ? (access.bucketKeyPrefixes ?? []) : []),
      ...(access.bucketWriteKeyPrefix === undefined ? [] : [access.bucketWriteKeyPrefix]),
      ...(access.signLinks ? [access.signLinks.keyPrefix] : []),
    ];
    if (prefixes.some((prefix) => prefix.startsWith(PROOFS_PREFIX)))
      this.addEnvironment(RESOURCE_ENV.proofRetentionDays, String(resources.proofRetentionDays));
    if (access.webhookSecrets)
      this.bindSecretsKey(resources.webhookSecretsKey, access.webhookSecrets, WEBHOOK_SECRET_CONTEXT_KEYS);
    if (access.stopPins)
      this.bindSecretsKey(resources.webhookSecretsKey, access.stopPins, STOP_PIN_CONTEXT_KEYS);
    if (access.recipients)
      this.bindSecretsKey(resources.webhookSecretsKey, access.recipients, RECIPIENT_CONTEXT_KEYS);
    if (access.customerMessages) this.bindMessageSenders(access.customerMessages);
    for (const channel of new Set(access.sendTo ?? [])) this.bindQueue(resources.queue(channel), channel);
    for (const channel of new Set(access.sendToDeadLetter ?? [])) {
      const deadLetterQueue = resources.deadLetterQueue(channel);
      this.addEnvironment(channel.deadLetterUrlEnv, deadLetterQueue.queueUrl);
      deadLetterQueue.grantSendMessages(this);
    }
  }

  /** Tells the function the table's name and grants exactly `access`: read-only or read-write data access. */
  bindTable(table: ITable, access: TableAccess): void {
    this.addEnvironment(RESOURCE_ENV.table, table.tableName);
    if (access === 'read') table.grantReadData(this);
    else table.grantReadWriteData(this);
  }

  /**
   * Tells the function the bucket's name and grants the object actions of its access (BUCKET_ACTIONS) on
   * `objectsArn` (some or all of the bucket's objects). Not `grantRead`/`grantPut`: those add s3:GetObject*,
   * s3:List* or s3:Abort* wildcards.
   */
  bindBucket(bucket: IBucket, access: BucketAccess, objectsArn: string): void {
    this.addEnvironment(RESOURCE_ENV.bucket, bucket.bucketName);
    this.addToRolePolicy(
      new PolicyStatement({ actions: [...BUCKET_ACTIONS[access]], resources: [objectsArn] }),
    );
  }

  /**
   * A role that may do only what the function's presigned links do (`access` on `objectsArn`) and that only
   * this function's role may assume; the function gets sts:AssumeRole on it, its ARN and the bucket's name,
   * and no S3 action. Links signed with the role's session credentials expire when those do, at a time
   * STS tells the function (its own Lambda credentials' expiry is never told). A create-only signer is
   * refused a PutObject without `If-None-Match` (S3's `s3:if-none-match` condition key), so each of its links
   * can only create its object, never replace it.
   */
  bindLinkSigner(bucket: IBucket, { access, createOnly }: LinkSigning, objectsArn: string): void {
    const { id, action } = LINK_SIGNERS[access];
    const functionRole = this.role as Role;
    const signer = new Role(this, id, {
      assumedBy: new ArnPrincipal(functionRole.roleArn),
      description: `Signs the presigned ${action} links of ${this.sliceName}`,
    });
    signer.addToPolicy(new PolicyStatement({ actions: [action], resources: [objectsArn] }));
    if (createOnly)
      signer.addToPolicy(
        new PolicyStatement({
          sid: 'CreateOnly',
          effect: Effect.DENY,
          actions: [action],
          resources: [objectsArn],
          conditions: { Null: { 's3:if-none-match': 'true' } },
        }),
      );
    signer.grantAssumeRole(functionRole);
    this.addEnvironment(RESOURCE_ENV.bucket, bucket.bucketName);
    this.addEnvironment(RESOURCE_ENV.linkSignerRoleArn, signer.roleArn);
  }

  /**
   * Tells the function the webhook secrets key's ARN and allows the one action of `use` on that key only
   * (SECRETS_KEY_ACTIONS), under an encryption context of exactly `contextKeys`: webhook secrets'
   * (WEBHOOK_SECRET_CONTEXT_KEYS) or stop PINs' (STOP_PIN_CONTEXT_KEYS) or recipients' (RECIPIENT_CONTEXT_KEYS), so a grant for one
   * opens nothing of another. Through the role's policy: the key's default policy lets IAM grant its use.
   */
  bindSecretsKey(
    key: IKey,
    use: NonNullable<ResourceAccess['webhookSecrets']>,
    contextKeys: readonly string[],
  ): void {
    this.addEnvironment(RESOURCE_ENV.webhookSecretsKeyArn, key.keyArn);
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [SECRETS_KEY_ACTIONS[use]],
        resources: [key.keyArn],
        // Only under a context of exactly these names: the function can make or open no data key of another
        // kind, nor one without a context.
        conditions: {
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...contextKeys] },
          Null: Object.fromEntries(contextKeys.map((name) => [`kms:EncryptionContext:${name}`, 'false'])),
        },
      }),
    );
  }

  /**
   * Lets the function send customer messages with exactly the configured senders: ses:SendEmail on the SES
   * identity and configuration set, sms-voice:SendTextMessage on the origination identity and configuration
   * set (each a resource the call names, as both services authorize them), and tells it the senders.
   */
  bindMessageSenders({ email, sms }: MessageSenders): void {
    if (email) {
      this.addEnvironment(RESOURCE_ENV.emailFrom, email.from);
      if (email.configurationSet)
        this.addEnvironment(RESOURCE_ENV.emailConfigurationSet, email.configurationSet);
      this.addToRolePolicy(
        new PolicyStatement({
          actions: ['ses:SendEmail'],
          resources: [
            sesArn(this, `identity/${email.identity}`),
            ...(email.configurationSet ? [sesArn(this, `configuration-set/${email.configurationSet}`)] : []),
          ],
        }),
      );
    }
    if (sms) {
      this.addEnvironment(RESOURCE_ENV.smsOriginationIdentity, sms.originationIdentity);
      if (sms.configurationSet) this.addEnvironment(RESOURCE_ENV.smsConfigurationSet, sms.configurationSet);
      this.addToRolePolicy(
        new PolicyStatement({
          actions: ['sms-voice:SendTextMessage'],
          resources: [
            originationIdentityArn(this, sms.originationIdentity),
            ...(sms.configurationSet ? [smsArn(this, `configuration-set/${sms.configurationSet}`)] : []),
          ],
        }),
      );
    }
  }

  /** Lets the function send to the channel's queue and tells it the URL (in the channel's `urlEnv`). */
  bindQueue(queue: IQueue, channel: Channel): void {
    this.addEnvironment(channel.urlEnv, queue.queueUrl);
    queue.grantSendMessages(this);
  }
}

/**
 * Builds the asset with the repository's esbuild in the synth's own process (lib/bundling.ts), never in Docker:
 * `cdk synth` works on a machine without it. The fields are the bundling's identity for CDK's asset cache,
 * which otherwise would hand one function's asset to another.
 */
class LocalBundling implements BundlingOptions {
  /** Required by CDK; never run, since local bundling either succeeds or throws. */
  readonly image = DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x');
  readonly esbuild = LAMBDA_ESBUILD_OPTIONS;
  readonly local;

  constructor(readonly asset: FunctionAsset) {
    this.local = {
      tryBundle(outputDir: string): boolean {
        buildFunctionAssetSync(asset, outputDir);
        return true;
      },
    };
  }
}
