/**
 * Identity-based policy evaluation as IAM does it for a caller in the resource's own account:
 * an explicit Deny in any statement wins, else any Allow allows, else the request is implicitly denied.
 *
 * Callers' requests are checked against identity-based policies only. The app's resource-based policies
 * (queue and bucket policies) only deny requests whose `aws:SecureTransport` is false; on AWS every SDK call
 * uses TLS, so they never deny one of its calls, and the local traffic (plain HTTP on loopback) stands for
 * that TLS traffic. A service principal's access (S3 sending event notifications to a queue) is granted by
 * the resource-based policy alone: `servicePrincipalDecision` evaluates it. Permissions boundaries, session
 * policies and SCPs do not exist locally.
 */
import type { PolicyDocument, PolicyStatement } from '../cloud/model';

/** One permission AWS checks for an API call: an action (`dynamodb:GetItem`) on a resource ARN (or `*`). */
export interface AuthorizationCheck {
  action: string;
  resource: string;
}

export type Decision = 'Allow' | 'ExplicitDeny' | 'ImplicitDeny';

/**
 * The request context keys conditions may read: strings, as IAM compares them, or a list for a multivalued
 * key (`kms:EncryptionContextKeys`), which only the `ForAllValues:` and `ForAnyValue:` qualifiers compare.
 */
export type ConditionContext = Readonly<Record<string, string | readonly string[]>>;

/**
 * The condition operators this evaluator implements (each also with the `IfExists` suffix). Anything else
 * is refused when a principal is registered, so a policy is never evaluated with a condition ignored.
 */
const OPERATORS: Record<string, (actual: string, expected: string) => boolean> = {
  StringEquals: (actual, expected) => actual === expected,
  StringNotEquals: (actual, expected) => actual !== expected,
  StringEqualsIgnoreCase: (actual, expected) => actual.toLowerCase() === expected.toLowerCase(),
  StringNotEqualsIgnoreCase: (actual, expected) => actual.toLowerCase() !== expected.toLowerCase(),
  StringLike: (actual, expected) => wildcardRegExp(expected, '').test(actual),
  StringNotLike: (actual, expected) => !wildcardRegExp(expected, '').test(actual),
  ArnEquals: (actual, expected) => arnMatches(expected, actual),
  ArnLike: (actual, expected) => arnMatches(expected, actual),
  ArnNotEquals: (actual, expected) => !arnMatches(expected, actual),
  ArnNotLike: (actual, expected) => !arnMatches(expected, actual),
  Bool: (actual, expected) => actual.toLowerCase() === expected.toLowerCase(),
  NumericEquals: (actual, expected) => Number(actual) === Number(expected),
  NumericNotEquals: (actual, expected) => Number(actual) !== Number(expected),
  NumericLessThan: (actual, expected) => Number(actual) < Number(expected),
  NumericLessThanEquals: (actual, expected) => Number(actual) <= Number(expected),
  NumericGreaterThan: (actual, expected) => Number(actual) > Number(expected),
  NumericGreaterThanEquals: (actual, expected) => Number(actual) >= Number(expected),
};

/** Negated operators match when any value differs, i.e. they are true only if no listed value matches. */
const NEGATED = new Set([
  'StringNotEquals',
  'StringNotEqualsIgnoreCase',
  'StringNotLike',
  'ArnNotEquals',
  'ArnNotLike',
  'NumericNotEquals',
]);

/**
 * The context keys the local runtime can fill in. A condition on any other key is refused at registration:
 * treating it as absent could make a Deny statement silently not apply.
 */
export const SUPPORTED_CONDITION_KEYS = [
  'aws:SecureTransport',
  'aws:PrincipalArn',
  'aws:PrincipalAccount',
  'aws:RequestedRegion',
  // Set when a service principal acts for a resource (S3 notifying a queue of a bucket's objects).
  'aws:SourceArn',
  'aws:SourceAccount',
  // S3 writes: the If-None-Match header of a PutObject or CompleteMultipartUpload (S3 conditional writes).
  's3:if-none-match',
  // KMS calls: the names of the request's encryption context (multivalued), and each pair's value.
  'kms:EncryptionContextKeys',
  'kms:EncryptionContext:*',
] as const;

const supportedKeys = new Set(
  SUPPORTED_CONDITION_KEYS.filter((key) => !key.endsWith('*')).map((key) => key.toLowerCase()),
);
/** Keys with a list of values: a condition compares them only with a set qualifier. */
const MULTIVALUED_KEYS = new Set(['kms:encryptioncontextkeys']);

const supportedKey = (key: string) =>
  supportedKeys.has(key.toLowerCase()) ||
  (key.toLowerCase().startsWith('kms:encryptioncontext:') && key.length > 'kms:EncryptionContext:'.length);

/** The set qualifiers of a condition operator (`ForAllValues:StringEquals`). */
const SET_QUALIFIERS = ['ForAllValues', 'ForAnyValue'] as const;
type SetQualifier = (typeof SET_QUALIFIERS)[number];

/** `ForAllValues:StringEqualsIfExists` -> its qualifier, base operator and IfExists. */
function parseOperator(operator: string): { qualifier?: SetQualifier; base: string; ifExists: boolean } {
  const [first, ...rest] = operator.split(':');
  const qualifier = SET_QUALIFIERS.find((name) => name === first && rest.length === 1);
  const name = qualifier ? (rest[0] as string) : operator;
  const ifExists = name.endsWith('IfExists');
  return { qualifier, base: ifExists ? name.slice(0, -'IfExists'.length) : name, ifExists };
}

export class UnsupportedPolicyError extends Error {
  override name = 'UnsupportedPolicyError';
}

const asList = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/**
 * Refuses what this evaluator cannot evaluate faithfully: statements without exactly one of Action/NotAction
 * and Resource/NotResource, policy variables, and condition operators or keys it does not implement.
 */
export function validatePolicy(document: PolicyDocument): void {
  for (const [index, statement] of document.Statement.entries()) {
    const where = `statement ${statement.Sid ?? index}`;
    if (statement.Effect !== 'Allow' && statement.Effect !== 'Deny') {
      throw new UnsupportedPolicyError(`${where}: Effect must be Allow or Deny`);
    }
    if ((statement.Action === undefined) === (statement.NotAction === undefined)) {
      throw new UnsupportedPolicyError(`${where}: needs exactly one of Action and NotAction`);
    }
    if ((statement.Resource === undefined) === (statement.NotResource === undefined)) {
      throw new UnsupportedPolicyError(`${where}: needs exactly one of Resource and NotResource`);
    }
    for (const resource of [...asList(statement.Resource), ...asList(statement.NotResource)]) {
      if (resource.includes('${')) {
        throw new UnsupportedPolicyError(`${where}: policy variables are not supported (${resource})`);
      }
    }
    for (const [operator, keys] of Object.entries(statement.Condition ?? {})) {
      const { qualifier, base } = parseOperator(operator);
      if (!(base in OPERATORS) && !(base === 'Null' && !qualifier)) {
        throw new UnsupportedPolicyError(`${where}: condition operator ${operator} is not supported`);
      }
      for (const key of Object.keys(keys)) {
        if (!supportedKey(key)) {
          throw new UnsupportedPolicyError(
            `${where}: condition key ${key} is not supported (supported: ${SUPPORTED_CONDITION_KEYS.join(', ')})`,
          );
        }
        if (MULTIVALUED_KEYS.has(key.toLowerCase()) && !qualifier && base !== 'Null') {
          throw new UnsupportedPolicyError(
            `${where}: ${key} is multivalued: compare it with ForAllValues: or ForAnyValue:`,
          );
        }
      }
    }
  }
}

/** The decision IAM reaches for one check against a principal's identity-based policies. */
export function evaluate(
  policies: readonly PolicyDocument[],
  check: AuthorizationCheck,
  context: ConditionContext = {},
): Decision {
  let allowed = false;
  for (const policy of policies) {
    for (const statement of policy.Statement) {
      if (!statementApplies(statement, check, context)) continue;
      if (statement.Effect === 'Deny') return 'ExplicitDeny';
      allowed = true;
    }
  }
  return allowed ? 'Allow' : 'ImplicitDeny';
}

/**
 * The decision a resource-based policy reaches for a service principal (e.g. `s3.amazonaws.com`): only
 * statements whose Principal names that service (or everyone) apply; a Deny among them wins.
 */
export function servicePrincipalDecision(
  policies: readonly PolicyDocument[],
  service: string,
  check: AuthorizationCheck,
  context: ConditionContext,
): Decision {
  const about = (statement: PolicyStatement) => principalNames(statement, 'Service', [service]);
  return evaluate(
    policies.map((policy) => ({ ...policy, Statement: policy.Statement.filter(about) })),
    check,
    context,
  );
}

/**
 * The decision a role's trust policy reaches for a caller assuming it: only statements whose Principal
 * names the caller's role ARN, its account (`<id>` or `arn:aws:iam::<id>:root`) or everyone apply. A trust
 * policy has no Resource: it is about the role itself.
 */
export function trustDecision(
  trustPolicy: PolicyDocument,
  caller: { arn: string; accountId: string },
  action: string,
  context: ConditionContext,
): Decision {
  const callerNames = [caller.arn, caller.accountId, `arn:aws:iam::${caller.accountId}:root`];
  const names = (statement: PolicyStatement) => principalNames(statement, 'AWS', callerNames);
  return evaluate(
    [{ Statement: trustPolicy.Statement.filter(names).map(aboutTheRole) }],
    { action, resource: '*' },
    context,
  );
}

/** Whether a statement's Principal is everyone (`*`, or the AWS principal `*`) or names one of `names` of `kind`. */
function principalNames(
  statement: PolicyStatement,
  kind: 'Service' | 'AWS',
  names: readonly string[],
): boolean {
  const { Principal } = statement;
  if (Principal === '*') return true;
  if (!Principal) return false;
  return asList(Principal.AWS).includes('*') || asList(Principal[kind]).some((name) => names.includes(name));
}

/** A trust policy statement as the evaluator reads statements: about every resource (the role itself). */
export function aboutTheRole(statement: PolicyStatement): PolicyStatement {
  return statement.Resource === undefined && statement.NotResource === undefined
    ? { ...statement, Resource: '*' }
    : statement;
}

function statementApplies(
  statement: PolicyStatement,
  check: AuthorizationCheck,
  context: ConditionContext,
): boolean {
  const actionListed = (patterns: string | string[] | undefined) =>
    asList(patterns).some((pattern) => actionMatches(pattern, check.action));
  const resourceListed = (patterns: string | string[] | undefined) =>
    asList(patterns).some((pattern) => arnMatches(pattern, check.resource));
  const actionApplies =
    statement.Action !== undefined ? actionListed(statement.Action) : !actionListed(statement.NotAction);
  if (!actionApplies) return false;
  const resourceApplies =
    statement.Resource !== undefined
      ? resourceListed(statement.Resource)
      : !resourceListed(statement.NotResource);
  return resourceApplies && conditionsHold(statement.Condition ?? {}, context);
}

/** Action names match case-insensitively, with `*` and `?` wildcards (`dynamodb:Get*`, `s3:*`). */
export function actionMatches(pattern: string, action: string): boolean {
  return wildcardRegExp(pattern, 'i').test(action);
}

/**
 * Resource ARNs match case-sensitively with `*` and `?` wildcards within the colon-separated segments; a
 * `*` that ends a segment may expand beyond the colon (IAM User Guide, "IAM JSON policy elements:
 * Resource", Using wildcards in resource ARNs). A bare `*` matches everything.
 */
export function arnMatches(pattern: string, resource: string): boolean {
  if (pattern === '*') return true;
  let compiled = arnPatternCache.get(pattern);
  if (!compiled) {
    let source = '';
    for (let index = 0; index < pattern.length; index++) {
      const char = pattern[index] as string;
      const next = pattern[index + 1];
      if (char === '*') source += next === undefined || next === ':' ? '.*' : '[^:]*';
      else if (char === '?') source += '[^:]';
      else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    compiled = new RegExp(`^${source}$`, 's');
    arnPatternCache.set(pattern, compiled);
  }
  return compiled.test(resource);
}

const arnPatternCache = new Map<string, RegExp>();

const patternCache = new Map<string, RegExp>();

function wildcardRegExp(pattern: string, flags: '' | 'i'): RegExp {
  const cacheKey = `${flags}:${pattern}`;
  let compiled = patternCache.get(cacheKey);
  if (!compiled) {
    const source = pattern
      .split('')
      .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('');
    compiled = new RegExp(`^${source}$`, `s${flags}`);
    patternCache.set(cacheKey, compiled);
  }
  return compiled;
}

/** Every operator block must hold (AND); within a block every key must hold; a key holds if any value matches. */
function conditionsHold(
  conditions: Record<string, Record<string, string | string[]>>,
  context: ConditionContext,
): boolean {
  return Object.entries(conditions).every(([operator, keys]) =>
    Object.entries(keys).every(([key, expected]) => conditionHolds(operator, key, asList(expected), context)),
  );
}

function conditionHolds(
  operator: string,
  key: string,
  expected: string[],
  context: ConditionContext,
): boolean {
  const actual = lookup(context, key);
  if (operator === 'Null') {
    // `Null: true` holds when the key is absent, `Null: false` when it is present.
    return expected.some((value) => (value.toLowerCase() === 'true') === (actual === undefined));
  }
  const { qualifier, base, ifExists } = parseOperator(operator);
  const compare = OPERATORS[base];
  if (!compare) throw new UnsupportedPolicyError(`condition operator ${operator} is not supported`);
  const matches = (value: string) =>
    NEGATED.has(base)
      ? expected.every((wanted) => compare(value, wanted))
      : expected.some((wanted) => compare(value, wanted));
  if (qualifier) {
    // IAM: ForAllValues holds when every value of the request's set matches (so also for an absent or empty
    // set); ForAnyValue when at least one does.
    const values = actual === undefined ? [] : typeof actual === 'string' ? [actual] : actual;
    if (qualifier === 'ForAllValues') return values.every(matches);
    return values.length === 0 ? ifExists && actual === undefined : values.some(matches);
  }
  if (actual === undefined) return ifExists;
  if (typeof actual !== 'string')
    throw new UnsupportedPolicyError(`${key} is multivalued: use ForAllValues or ForAnyValue`);
  return matches(actual);
}

/** Condition key names are case-insensitive. */
function lookup(context: ConditionContext, key: string): string | readonly string[] | undefined {
  const wanted = key.toLowerCase();
  for (const [name, value] of Object.entries(context)) if (name.toLowerCase() === wanted) return value;
  return undefined;
}
