import { isPlainObject } from './intrinsics';
import type { PolicyDocument, PolicyStatement, RoleSpec } from './model';
import { type ResourceProperties, readEach } from './properties';
import type { CloudTemplates } from './templates';

/** AWS managed policies: their statements are not in the templates, so the local runtime cannot enforce them. */
const AWS_MANAGED_POLICY = /^arn:aws[\w-]*:iam::aws:policy\//;

/**
 * The services whose roles the local runtime hands credentials to (functions, the pipe). Roles only other
 * services assume (API Gateway's account-level CloudWatch role) are never used here and are not read.
 */
const LOCALLY_ASSUMED_BY = new Set(['lambda.amazonaws.com', 'pipes.amazonaws.com']);

/**
 * Every role a local function or pipe assumes, and every role one of those may assume in turn (its trust
 * policy names the role's ARN: a link signer, see ResourceAccess.signLinks), with every identity-based
 * policy attached to it anywhere in the assembly: inline Policies, AWS::IAM::Policy and
 * AWS::IAM::ManagedPolicy resources naming it (any stack), AWS::IAM::RolePolicy, and customer managed
 * policies of the assembly that its ManagedPolicyArns name.
 */
export function readRoles(templates: CloudTemplates): RoleSpec[] {
  const byRoleName = new Map<string, PolicyDocument[]>();
  const attach = (roleName: string, document: PolicyDocument) => {
    byRoleName.set(roleName, [...(byRoleName.get(roleName) ?? []), document]);
  };
  for (const type of ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy']) {
    readEach(templates, type, (policy) => {
      const document = policyDocument(policy, 'PolicyDocument');
      for (const [index, role] of policy.list('Roles').entries()) {
        if (typeof role !== 'string') throw policy.fail(`Roles[${index}]`, 'expected a role name');
        attach(role, document);
      }
    });
  }
  readEach(templates, 'AWS::IAM::RolePolicy', (policy) =>
    attach(policy.requiredString('RoleName'), policyDocument(policy, 'PolicyDocument')),
  );
  const managedPolicies = new Map(
    readEach(templates, 'AWS::IAM::ManagedPolicy', (policy) => [
      templates.ref(policy.declared.stack, policy.logicalId),
      policyDocument(policy, 'PolicyDocument'),
    ]),
  );

  const declared = readEach(templates, 'AWS::IAM::Role', (role) => ({
    role,
    arn: String(templates.getAtt(role.declared.stack, role.logicalId, 'Arn')),
    trustPolicy: policyDocument(role, 'AssumeRolePolicyDocument'),
    trustedServices: trustedServices(role),
  }));
  const used = declared.filter(({ trustedServices }) =>
    trustedServices.some((service) => LOCALLY_ASSUMED_BY.has(service)),
  );
  // Roles that a used role may assume are used too, until no more are added.
  for (let added = true; added; ) {
    const usedArns = new Set(used.map(({ arn }) => arn));
    const next = declared.filter(
      (candidate) =>
        !usedArns.has(candidate.arn) && trustedRoles(candidate.trustPolicy).some((arn) => usedArns.has(arn)),
    );
    used.push(...next);
    added = next.length > 0;
  }
  return used.map(({ role, arn, trustPolicy, trustedServices }): RoleSpec => {
    const name = templates.physicalId(role.declared.stack, role.logicalId);
    const inline = role
      .list('Policies')
      .map((_policy, index) => policyDocument(role, `Policies.${index}.PolicyDocument`));
    return {
      logicalId: role.logicalId,
      stackPath: role.stackPath,
      name,
      arn,
      policies: [
        ...inline,
        ...(byRoleName.get(name) ?? []),
        ...managedPolicyDocuments(role, managedPolicies),
      ],
      trustPolicy,
      trustedServices,
    };
  });
}

/** The role ARNs the role's trust policy names as AWS principals. */
function trustedRoles(trustPolicy: PolicyDocument): string[] {
  return trustPolicy.Statement.flatMap((statement) => {
    const principal = statement.Principal;
    return typeof principal === 'object' ? [principal.AWS ?? []].flat() : [];
  });
}

/** The service principals the role's trust policy names. */
function trustedServices(role: ResourceProperties): string[] {
  const trust = role.value('AssumeRolePolicyDocument');
  const statements = isPlainObject(trust) ? [trust.Statement].flat() : [];
  return statements.flatMap((statement) => {
    const service =
      isPlainObject(statement) && isPlainObject(statement.Principal) && statement.Principal.Service;
    return [service ?? []].flat().filter((name): name is string => typeof name === 'string');
  });
}

function managedPolicyDocuments(role: ResourceProperties, assemblyPolicies: Map<string, PolicyDocument>) {
  const arns = role.list('ManagedPolicyArns').map(String);
  const awsManaged = arns.filter((arn) => AWS_MANAGED_POLICY.test(arn));
  if (awsManaged.length > 0) {
    throw role.fail(
      'ManagedPolicyArns',
      `AWS managed policies ${awsManaged.join(', ')} have statements the templates do not hold; the local runtime cannot enforce them (grant what the role needs instead)`,
    );
  }
  return arns.map((arn) => {
    const document = assemblyPolicies.get(arn);
    if (!document) throw role.fail('ManagedPolicyArns', `${arn} is not a managed policy of the assembly`);
    return document;
  });
}

/** A policy document at `path` (an object, or JSON text), its Statement always a list. */
export function policyDocument(resource: ResourceProperties, path: string): PolicyDocument {
  let document = resource.value(path);
  if (typeof document === 'string') document = JSON.parse(document);
  if (!isPlainObject(document)) throw resource.fail(path, 'expected a policy document');
  const statements = Array.isArray(document.Statement) ? document.Statement : [document.Statement];
  const Statement = statements.map((statement, index): PolicyStatement => {
    if (!isPlainObject(statement) || (statement.Effect !== 'Allow' && statement.Effect !== 'Deny')) {
      throw resource.fail(`${path}.Statement[${index}]`, 'expected a statement with Effect Allow or Deny');
    }
    return statement as unknown as PolicyStatement;
  });
  return typeof document.Version === 'string' ? { Version: document.Version, Statement } : { Statement };
}
