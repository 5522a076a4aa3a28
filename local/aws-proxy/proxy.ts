/**
 * The local AWS endpoint: a signing-aware proxy in front of DynamoDB Local and fauxqs. It identifies each
 * caller by the access key id of its SigV4 signature, checks the signature, authorizes the call against
 * the caller's identity-based policies as IAM does, enforces the AWS limits the emulators do not, and
 * forwards the call. Each function gets AWS_ENDPOINT_URL_DYNAMODB / _SQS / _S3 / _STS pointing here and
 * credentials of its own; handler code is the code that runs on AWS.
 *
 * STS's AssumeRole is answered here (local/aws-proxy/sts.ts): the roles a function may assume are the
 * deployment's, and the credentials it issues become principals of their own. So are API Gateway's API key
 * calls (local/aws-proxy/api-gateway.ts), on the key store the local API Gateway reads, and KMS's
 * GenerateDataKey and Decrypt (local/aws-proxy/kms.ts), for the deployment's keys, with a master key of this
 * runtime.
 *
 * Routing is by the service of the signature's credential scope (`dynamodb`, which DynamoDB Streams signs
 * with too, `sqs`, `s3`, `sts`, `apigateway`, `kms`); unsigned requests are told apart by their shape.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiKeyStore } from '../api-gateway/api-keys';
import { type KmsKeySpec, LOCAL_ACCOUNT_ID } from '../cloud/model';
import { aboutTheRole, validatePolicy } from '../iam/policy';
import { handleApiGateway } from './api-gateway';
import { handleDynamoDb } from './dynamodb';
import { CapacityMeter } from './dynamodb-metering';
import type { PartitionModel } from './dynamodb-partitions';
import {
  type AuthenticationFailure,
  authenticationError,
  internalError,
  type ServiceName,
  sendError,
  validationError,
} from './errors';
import { handleKms, newKmsMasterKey } from './kms';
import { handleSes, handleSms, Outbox } from './outbox';
import { OutboxOutcomes } from './outbox-outcomes';
import { checkPrincipal, type Principal, type SignedCall } from './principals';
import { handleS3 } from './s3';
import { type NotificationSetup, S3Notifications } from './s3-notifications';
import {
  amzDateToMs,
  MAX_PRESIGNED_EXPIRY_SECONDS,
  parseAuthentication,
  parseQuery,
  type SigningDetails,
  signatureMatches,
} from './sigv4';
import { SqsProxy } from './sqs';
import { type AssumableRole, handleSts } from './sts';
import type { KeptSessions } from './sts-sessions';
import { BodyTooLargeError, sendJson, Upstream } from './upstream';

export type { Principal } from './principals';
export type { AssumableRole } from './sts';

export interface AwsProxy {
  /** e.g. http://127.0.0.1:4566: the value for AWS_ENDPOINT_URL_DYNAMODB, _SQS, _S3, _STS, _API_GATEWAY and _KMS. */
  endpoint: string;
  /** API Gateway's API keys and usage plan keys, as the control-plane calls leave them. */
  apiKeys: ApiKeyStore;
  addPrincipal(principal: Principal): void;
  removePrincipal(accessKeyId: string): void;
  /** Who signs with this access key id (one STS issued too), for tests that follow credentials. */
  principalOf(accessKeyId: string): Readonly<Principal> | undefined;
  /** A role callers may assume (STS AssumeRole), as its trust policy and their own policies allow. */
  addRole(role: AssumableRole): void;
  /** Registers the unexpired sessions kept from earlier runs (`keptSessions`), once their roles are added. */
  restoreSessions(): void;
  /** The deployment's bucket notifications, from then on delivered; refused as S3 refuses them (see s3-notifications.ts). */
  configureBucketNotifications(setup: NotificationSetup): void;
  /** The deployment's KMS keys: KMS calls naming any other key fail with NotFoundException. */
  configureKeys(keys: readonly KmsKeySpec[]): void;
  /** The DynamoDB partition model's counters, when it runs (the `partitions` option). */
  partitions?: PartitionModel;
  /** Customer messages the functions sent (SES v2 SendEmail, End User Messaging SMS SendTextMessage). */
  outbox: Outbox;
  close(): Promise<void>;
}

/**
 * The partition model's report (GET: JSON, as PartitionModel.report gives it) and its reset (DELETE), for
 * processes other than the runtime's (the bench). Not an AWS path: no signature, served on loopback only.
 */
export const PARTITIONS_PATH = '/_local/dynamodb/partitions';

export interface AwsProxyOptions {
  dynamodbEndpoint: string;
  /** fauxqs (SQS and S3). */
  awsEndpoint: string;
  /** 0 or absent: any free port. */
  port?: number;
  /**
   * Sessions AssumeRole issues expire after at most this many seconds (default 3600, AWS's limit for role
   * chaining, which every local caller does): a test shortens it to outwait a session.
   */
  maxChainedSessionSeconds?: number;
  /** API Gateway's API keys (default: a store of this process alone). */
  apiKeys?: ApiKeyStore;
  /**
   * 32 bytes every KMS key's wrapping key derives from (default: random, so only this runtime opens its
   * ciphertexts); npm start keeps one in its state directory for the data it keeps.
   */
  kmsMasterKey?: Buffer;
  /**
   * Where the STS sessions issued are kept (default: nowhere), so that links presigned before a restart of a
   * persistent npm start keep working until their sessions end, as on AWS.
   */
  keptSessions?: KeptSessions;
  /**
   * The DynamoDB partition model (local/aws-proxy/dynamodb-partitions.ts): capacity counted per partition key
   * by AWS's rules, and with `enforce` AWS's per-partition limits (1,000 write and 3,000 read units a second)
   * answered with DynamoDB's throttling errors. Off by default.
   */
  partitions?: { enforce: boolean };
}

/** AWS refuses header-signed requests dated more than 15 minutes from its clock. */
const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

const SERVICES = new Set<ServiceName>(['dynamodb', 'sqs', 's3', 'sts', 'apigateway', 'kms']);

/** The service an unsigned request was meant for, from its shape alone. */
function unsignedService(req: IncomingMessage): ServiceName {
  const target = String(req.headers['x-amz-target'] ?? '');
  if (target.startsWith('DynamoDB')) return 'dynamodb';
  if (target.startsWith('AmazonSQS')) return 'sqs';
  if (/^\/(apikeys|usageplans)(\/|\?|$)/.test(req.url ?? '')) return 'apigateway';
  if (target.startsWith('TrentService')) return 'kms';
  // Query protocol calls are form-encoded; S3's browser uploads (POST Object) are multipart.
  if (String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return 'sts';
  return 's3';
}

export async function startAwsProxy(options: AwsProxyOptions): Promise<AwsProxy> {
  const principals = new Map<string, Principal>();
  const roles = new Map<string, AssumableRole>();
  const kmsKeys = new Map<string, KmsKeySpec>();
  const kmsMasterKey = options.kmsMasterKey ?? newKmsMasterKey();
  if (kmsMasterKey.length !== 32) throw new Error('kmsMasterKey must be 32 bytes');
  const addPrincipal = (principal: Principal) => {
    checkPrincipal(principal);
    principals.set(principal.accessKeyId, principal);
  };
  const dynamodb = new Upstream(options.dynamodbEndpoint);
  const fauxqs = new Upstream(options.awsEndpoint);
  const meter = options.partitions
    ? new CapacityMeter({ dynamodbEndpoint: options.dynamodbEndpoint, enforce: options.partitions.enforce })
    : undefined;
  const notifications = new S3Notifications(fauxqs);
  const apiKeys = options.apiKeys ?? new ApiKeyStore();
  const outbox = new Outbox(new OutboxOutcomes(fauxqs));
  let sqs: SqsProxy | undefined;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const service = unsignedService(req);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof BodyTooLargeError) {
        sendError(res, service, { ...validationError(service, error.message), status: 413 });
        return;
      }
      sendError(res, service, internalError(service, `local AWS proxy: ${String(error)}`));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const questionMark = url.indexOf('?');
    const rawPath = questionMark < 0 ? url : url.slice(0, questionMark);
    const rawQuery = questionMark < 0 ? '' : url.slice(questionMark + 1);
    if (rawPath === PARTITIONS_PATH) {
      req.resume();
      servePartitions(req, res, meter?.model);
      return;
    }
    const query = parseQuery(rawQuery);
    const isHead = req.method === 'HEAD';
    const parsed = parseAuthentication(req.headers, query);
    if (parsed.kind !== 'signed') {
      const failure: AuthenticationFailure =
        parsed.kind === 'unsigned' ? { kind: 'missing' } : { kind: 'malformed', message: parsed.message };
      const service = unsignedService(req);
      req.resume();
      sendError(res, service, authenticationError(service, failure), isHead);
      return;
    }
    const { signing } = parsed;
    // SES and End User Messaging SMS go to the outbox; their errors take the shape of KMS's JSON protocol.
    const messaging = signing.service === 'ses' || signing.service === 'sms-voice';
    const service = messaging ? 'kms' : (signing.service as ServiceName);
    if (!SERVICES.has(service)) {
      req.resume();
      sendError(
        res,
        'dynamodb',
        validationError('dynamodb', `The local AWS endpoint does not serve ${signing.service}.`),
      );
      return;
    }
    const failure = authenticate(signing, principals.get(signing.accessKeyId));
    if (failure) {
      req.resume();
      sendError(res, service, authenticationError(service, failure), isHead);
      return;
    }
    const principal = principals.get(signing.accessKeyId) as Principal;
    const call: SignedCall = {
      req,
      res,
      rawPath,
      rawQuery,
      query,
      signing,
      principal,
      scope: { region: signing.region, accountId: LOCAL_ACCOUNT_ID },
      signatureMatches: (payloadHash) =>
        signatureMatches(signing, principal.secretAccessKey, {
          method: req.method ?? 'GET',
          rawPath,
          query,
          headers: req.headers,
          payloadHash,
          doubleEncodePath: signing.service !== 's3',
        }),
    };
    if (service === 'dynamodb') return handleDynamoDb(call, dynamodb, meter);
    if (service === 'sqs') return (sqs as SqsProxy).handle(call);
    if (service === 'sts') {
      return handleSts(call, {
        roles,
        addPrincipal,
        maxChainedSessionSeconds: options.maxChainedSessionSeconds,
        keptSessions: options.keptSessions,
      });
    }
    if (service === 'apigateway') return handleApiGateway(call, apiKeys);
    if (signing.service === 'ses') return handleSes(call, outbox);
    if (signing.service === 'sms-voice') return handleSms(call, outbox);
    if (service === 'kms') return handleKms(call, { keys: kmsKeys, masterKey: kmsMasterKey });
    return handleS3(call, fauxqs, notifications);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  // Long polls (ReceiveMessage waits up to 20 s) and large uploads must not be cut by server timeouts.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 60_000;
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sqs = new SqsProxy(fauxqs, new URL(endpoint));

  return {
    endpoint,
    apiKeys,
    addPrincipal,
    addRole(role) {
      for (const policy of role.policies) validatePolicy(policy);
      validatePolicy({ Statement: role.trustPolicy.Statement.map(aboutTheRole) });
      roles.set(role.arn, role);
    },
    restoreSessions() {
      for (const principal of options.keptSessions?.principals(roles) ?? []) addPrincipal(principal);
    },
    removePrincipal(accessKeyId) {
      principals.delete(accessKeyId);
    },
    principalOf: (accessKeyId) => principals.get(accessKeyId),
    partitions: meter?.model,
    outbox,
    configureBucketNotifications: (setup) => notifications.configure(setup),
    configureKeys(keys) {
      kmsKeys.clear();
      for (const key of keys) kmsKeys.set(key.arn, key);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
        dynamodb.close();
        fauxqs.close();
        meter?.close();
      }),
  };
}

function servePartitions(req: IncomingMessage, res: ServerResponse, model: PartitionModel | undefined): void {
  if (!model) {
    sendJson(res, 404, { message: 'the DynamoDB partition model is off (LOCAL_DYNAMODB_PARTITIONS)' });
    return;
  }
  if (req.method === 'DELETE') {
    model.reset();
    res.writeHead(204).end();
    return;
  }
  if (req.method !== 'GET') {
    sendJson(res, 405, { message: `${PARTITIONS_PATH} takes GET (the report) and DELETE (a reset)` });
    return;
  }
  sendJson(res, 200, model.report());
}

/** Why the credentials of a signed request are not acceptable now, if they are not. */
function authenticate(
  signing: SigningDetails,
  principal: Principal | undefined,
): AuthenticationFailure | undefined {
  if (!principal) return { kind: 'unknownKey' };
  if (signing.sessionToken !== principal.sessionToken) return { kind: 'invalidToken' };
  const now = Date.now();
  if (principal.expiresAt !== undefined && now >= principal.expiresAt) return { kind: 'expiredToken' };
  if (signing.amzDate.slice(0, 8) !== signing.scopeDate) return { kind: 'badSignature' };
  const signedAt = amzDateToMs(signing.amzDate);
  if (signing.presigned) {
    if (signing.presigned.expiresSeconds > MAX_PRESIGNED_EXPIRY_SECONDS) return { kind: 'presignTooLong' };
    if (now > signedAt + signing.presigned.expiresSeconds * 1000) return { kind: 'presignExpired' };
    return undefined;
  }
  if (Math.abs(now - signedAt) > MAX_CLOCK_SKEW_MS) {
    const earliest = new Date(now - MAX_CLOCK_SKEW_MS).toISOString().replace(/[-:]|\.\d{3}/g, '');
    const current = new Date(now).toISOString().replace(/[-:]|\.\d{3}/g, '');
    return {
      kind: 'skewed',
      message: `Signature expired: ${signing.amzDate} is now earlier than ${earliest} (${current} - 15 min.)`,
    };
  }
  return undefined;
}
