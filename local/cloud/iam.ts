import { isPlainObject } from './intrinsics';
import type { PolicyDocument, PolicyStatement, RoleSpec } from './model';
import { type ResourceProperties, readEach } from './properties';
import type { CloudTemplates } from './templates';

/** AWS managed policies: their statements are not in the templates, so the local runtime cannot enforce them. */
const AWS_MANAGED_POLICY = /^arn:aws[\w-]*:iam::aws:policy\//;

/**
 * Every role with every identity-based policy attached to it anywhere in the assembly: inline Policies,
 * AWS::IAM::Policy and AWS::IAM::ManagedPolicy resources naming it (any stack), AWS::IAM::RolePolicy, and
 * customer managed policies of the assembly that its ManagedPolicyArns name.
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

  return readEach(templates, 'AWS::IAM::Role', (role): RoleSpec => {
    const { stack } = role.declared;
    const name = templates.physicalId(stack, role.logicalId);
    const inline = role
      .list('Policies')
      .map((_policy, index) => policyDocument(role, `Policies.${index}.PolicyDocument`));
    return {
      logicalId: role.logicalId,
      stackPath: role.stackPath,
      name,
      arn: String(templates.getAtt(stack, role.logicalId, 'Arn')),
      policies: [
        ...inline,
        ...(byRoleName.get(name) ?? []),
        ...managedPolicyDocuments(role, managedPolicies),
      ],
    };
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
