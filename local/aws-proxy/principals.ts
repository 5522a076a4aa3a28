/** Who may call the local AWS endpoint, and what IAM lets each of them do. */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LOCAL_ACCOUNT_ID, type PolicyDocument } from '../cloud/model';
import { MalformedRequestError, type RequestScope, UnknownOperationError } from '../iam/actions';
import {
  type AuthorizationCheck,
  type ConditionContext,
  type Decision,
  evaluate,
  validatePolicy,
} from '../iam/policy';
import {
  accessDeniedError,
  authenticationError,
  operationDenied,
  type ServiceError,
  type ServiceName,
  sendError,
  validationError,
} from './errors';
import type { SigningDetails } from './sigv4';
import { readBody } from './upstream';

export interface Principal {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** e.g. arn:aws:sts::000000000000:assumed-role/<role name>/<function name>; shown in AccessDenied messages */
  arn: string;
  /** The identity-based policies of its role, or 'admin' for the local operator (tests, admin CLI, seeding): every action allowed, limits still enforced. */
  policies: PolicyDocument[] | 'admin';
  /** epoch ms: requests signed with these credentials after it (and presigned URLs used after it) fail with AWS's ExpiredToken errors */
  expiresAt?: number;
}

/** Refuses a principal whose policies use what the evaluator cannot evaluate (see local/iam/policy.ts). */
export function checkPrincipal(principal: Principal): void {
  if (principal.policies === 'admin') return;
  for (const policy of principal.policies) validatePolicy(policy);
}

/** `aws:PrincipalArn` of an assumed-role session is its role's ARN. */
export function principalArnKey(arn: string): string {
  const session = /^arn:aws:sts::(\d{12}):assumed-role\/([^/]+)\/.+$/.exec(arn);
  return session ? `arn:aws:iam::${session[1]}:role/${session[2]}` : arn;
}

export interface Denial {
  check: AuthorizationCheck;
  decision: Exclude<Decision, 'Allow'>;
}

/** The first check the principal's policies do not allow, if any. */
export function firstDenial(
  principal: Principal,
  checks: readonly AuthorizationCheck[],
  region: string,
  requestContext: ConditionContext = {},
): Denial | undefined {
  if (principal.policies === 'admin') return undefined;
  const context = {
    ...requestContext,
    // On AWS the SDK always calls over TLS; the plain-HTTP loopback hop stands in for that.
    'aws:SecureTransport': 'true',
    'aws:PrincipalArn': principalArnKey(principal.arn),
    'aws:PrincipalAccount': LOCAL_ACCOUNT_ID,
    'aws:RequestedRegion': region,
  };
  for (const check of checks) {
    const decision = evaluate(principal.policies, check, context);
    if (decision !== 'Allow') return { check, decision };
  }
  return undefined;
}

/** A request whose credentials are known and current; its signature is checked by the service handler. */
export interface SignedCall {
  req: IncomingMessage;
  res: ServerResponse;
  /** The path as it came on the wire, percent-encoded. */
  rawPath: string;
  rawQuery: string;
  query: Record<string, string | string[]>;
  signing: SigningDetails;
  principal: Principal;
  scope: RequestScope;
  /** Compares the client's signature with the principal's for this payload hash. */
  signatureMatches(payloadHash: string): Promise<boolean>;
}

/**
 * Answers AccessDenied and returns false unless every check is allowed. `requestContext`: the service's own
 * condition keys of this request (KMS: its encryption context).
 */
export function authorize(
  service: ServiceName,
  call: SignedCall,
  checks: readonly AuthorizationCheck[],
  requestContext: ConditionContext = {},
): boolean {
  const denial = firstDenial(call.principal, checks, call.scope.region, requestContext);
  if (!denial) return true;
  const error = accessDeniedError(
    service,
    call.principal.arn,
    denial.check.action,
    denial.check.resource,
    denial.decision === 'ExplicitDeny',
  );
  sendError(call.res, service, error, call.req.method === 'HEAD');
  return false;
}

/**
 * Reads the whole body (at most `maxBytes`) of a call signed over its payload hash: the body when the
 * signature matches it; undefined when it does not, the client then answered with the service's error.
 */
export async function signedBody(
  service: ServiceName,
  call: SignedCall,
  maxBytes: number,
): Promise<Buffer | undefined> {
  const body = await readBody(call.req, maxBytes);
  if (await call.signatureMatches(createHash('sha256').update(body).digest('hex'))) return body;
  sendError(call.res, service, authenticationError(service, { kind: 'badSignature' }));
  return undefined;
}

/** How a service answers a request whose operation the proxy cannot find the IAM checks of. */
export interface UnauthorizableAnswers<T> {
  /**
   * What the operator (admin) is let through with when the proxy does not know the operation: without it,
   * the operator is refused like everyone else.
   */
  unchecked?: T;
  /** The error for an unknown operation (default: the service's AccessDenied). */
  unknown?: (message: string) => ServiceError;
  /** The error for a malformed request (default: the service's validation error). */
  malformed?: (message: string) => ServiceError;
}

/**
 * What `find` says about the call's operation (the IAM checks it needs): undefined when `find` throws
 * UnknownOperationError or MalformedRequestError, the client then answered as `answers` say.
 */
export function operationChecks<T>(
  service: ServiceName,
  call: SignedCall,
  find: () => T,
  answers: UnauthorizableAnswers<T> = {},
): T | undefined {
  let error: ServiceError;
  try {
    return find();
  } catch (thrown) {
    if (thrown instanceof MalformedRequestError) {
      error = (answers.malformed ?? ((message) => validationError(service, message)))(thrown.message);
    } else if (thrown instanceof UnknownOperationError) {
      if (answers.unknown) error = answers.unknown(thrown.message);
      else if (answers.unchecked !== undefined && call.principal.policies === 'admin')
        return answers.unchecked;
      else error = operationDenied(service, thrown.message);
    } else throw thrown;
  }
  sendError(call.res, service, error, call.req.method === 'HEAD');
  return undefined;
}
