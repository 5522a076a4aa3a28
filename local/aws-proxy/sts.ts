/**
 * STS through the proxy: AssumeRole, answered by the proxy itself (no emulator behind it), in the awsQuery
 * protocol the SDK's STS client speaks (form-encoded POST in, XML out).
 *
 * Authorization as IAM does it for a caller in the role's account, but stricter: the caller's identity-based
 * policies must allow sts:AssumeRole on the role AND the role's trust policy must name the caller's role
 * (or the account); AWS accepts a trust policy naming the caller's ARN alone. The credentials issued are a
 * new principal with the role's policies, expiring after DurationSeconds, at most the chained-session
 * maximum: every local caller is an assumed-role session, and AWS caps role chaining at an hour.
 */
import { createHash, randomBytes } from 'node:crypto';
import { LOCAL_ACCOUNT_ID, type PolicyDocument } from '../cloud/model';
import { stsChecks } from '../iam/actions';
import { trustDecision } from '../iam/policy';
import { accessDeniedError, escapeXml, STS_NAMESPACE, sendError, validationError } from './errors';
import {
  authorize,
  operationChecks,
  type Principal,
  principalArnKey,
  type SignedCall,
  signedBody,
} from './principals';
import type { KeptSessions } from './sts-sessions';

/** A role the proxy lets callers assume. */
export interface AssumableRole {
  name: string;
  arn: string;
  /** Its identity-based policies: what the sessions issued for it may do. */
  policies: PolicyDocument[];
  trustPolicy: PolicyDocument;
}

/** AWS's ceiling for a session assumed with a role's credentials (role chaining). */
export const MAX_CHAINED_SESSION_SECONDS = 3600;

const API_VERSION = '2011-06-15';
/** Far above any AssumeRole request (session policies included, which the service never sends). */
const MAX_REQUEST_BYTES = 64 * 1024;
const MIN_DURATION_SECONDS = 900;
const SESSION_NAME = /^[\w+=,.@-]{2,64}$/;

export interface StsOptions {
  roles: ReadonlyMap<string, AssumableRole>;
  /** Registers the credentials a call issues. */
  addPrincipal(principal: Principal): void;
  /** Keeps the sessions issued across restarts (a persistent `npm start`'s state). */
  keptSessions?: KeptSessions;
  /** Sessions issued here expire after at most this many seconds (default MAX_CHAINED_SESSION_SECONDS). */
  maxChainedSessionSeconds?: number;
}

export async function handleSts(call: SignedCall, options: StsOptions): Promise<void> {
  const { res } = call;
  const body = await signedBody('sts', call, MAX_REQUEST_BYTES);
  if (!body) return;
  const input = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
  const action = input.Action ?? '';
  if (input.Version !== API_VERSION) {
    sendError(res, 'sts', validationError('sts', `Version must be ${API_VERSION}`));
    return;
  }
  const checks = operationChecks('sts', call, () => stsChecks(action, input, call.scope), {
    unknown: (message) => ({
      status: 400,
      type: 'InvalidAction',
      message: `Could not find operation ${action} for version ${API_VERSION} (${message})`,
    }),
  });
  if (!checks) return;
  const roleArn = input.RoleArn as string;
  const sessionName = input.RoleSessionName ?? '';
  const durationSeconds = Number(input.DurationSeconds ?? MAX_CHAINED_SESSION_SECONDS);
  const invalid = !SESSION_NAME.test(sessionName)
    ? `Value '${sessionName}' at 'roleSessionName' failed to satisfy constraint: Member must have length between 2 and 64 and match [\\w+=,.@-]*`
    : !Number.isInteger(durationSeconds) || durationSeconds < MIN_DURATION_SECONDS
      ? `Value '${input.DurationSeconds}' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to ${MIN_DURATION_SECONDS}`
      : durationSeconds > MAX_CHAINED_SESSION_SECONDS
        ? 'The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.'
        : undefined;
  if (invalid) {
    sendError(res, 'sts', validationError('sts', invalid));
    return;
  }
  if (!authorize('sts', call, checks)) return;
  const role = options.roles.get(roleArn);
  const callerArn = principalArnKey(call.principal.arn);
  const context = {
    'aws:PrincipalArn': callerArn,
    'aws:PrincipalAccount': LOCAL_ACCOUNT_ID,
    'aws:SecureTransport': 'true',
    'aws:RequestedRegion': call.scope.region,
  };
  const trusted =
    role &&
    trustDecision(
      role.trustPolicy,
      { arn: callerArn, accountId: LOCAL_ACCOUNT_ID },
      'sts:AssumeRole',
      context,
    ) === 'Allow';
  if (!role || !trusted) {
    // AWS words a trust policy's refusal (and an unknown role) as an identity-based one.
    sendError(res, 'sts', accessDeniedError('sts', call.principal.arn, 'sts:AssumeRole', roleArn, false));
    return;
  }

  const lifetimeSeconds = Math.min(
    durationSeconds,
    options.maxChainedSessionSeconds ?? MAX_CHAINED_SESSION_SECONDS,
  );
  const expiresAt = Date.now() + lifetimeSeconds * 1000;
  const assumedRoleUser = `arn:aws:sts::${LOCAL_ACCOUNT_ID}:assumed-role/${role.name}/${sessionName}`;
  const issued: Principal = {
    accessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64'),
    sessionToken: randomBytes(48).toString('base64'),
    arn: assumedRoleUser,
    policies: role.policies,
    expiresAt,
  };
  options.addPrincipal(issued);
  options.keptSessions?.remember({
    accessKeyId: issued.accessKeyId,
    secretAccessKey: issued.secretAccessKey,
    sessionToken: issued.sessionToken as string,
    arn: assumedRoleUser,
    roleArn: role.arn,
    expiresAt,
  });
  const roleId = `AROA${createHash('sha256').update(role.arn).digest('hex').slice(0, 17).toUpperCase()}`;
  const requestId = randomBytes(16).toString('hex');
  const xml =
    `<AssumeRoleResponse xmlns="${STS_NAMESPACE}"><AssumeRoleResult>` +
    `<Credentials><AccessKeyId>${issued.accessKeyId}</AccessKeyId>` +
    `<SecretAccessKey>${escapeXml(issued.secretAccessKey)}</SecretAccessKey>` +
    `<SessionToken>${escapeXml(issued.sessionToken as string)}</SessionToken>` +
    `<Expiration>${new Date(expiresAt).toISOString()}</Expiration></Credentials>` +
    `<AssumedRoleUser><AssumedRoleId>${roleId}:${escapeXml(sessionName)}</AssumedRoleId>` +
    `<Arn>${escapeXml(assumedRoleUser)}</Arn></AssumedRoleUser>` +
    `</AssumeRoleResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></AssumeRoleResponse>`;
  res.writeHead(200, {
    'content-type': 'text/xml',
    'content-length': Buffer.byteLength(xml),
    'x-amzn-requestid': requestId,
  });
  res.end(xml);
}
