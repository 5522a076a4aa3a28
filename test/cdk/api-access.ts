import { expect } from 'vitest';
import { type accessByFunction, bucketObjects, type TemplateView } from './api-template';
import type { CfnResource } from './synth';

/**
 * What a function's declared access should grant, and its link-signer role, read from the API template
 * (api-template.ts's synthesis): the expectations of api-stack.test.ts.
 */

type FunctionAccess = (typeof accessByFunction)[number];

/**
 * The object actions a function's bucket access grants, each on the objects it names: reads on
 * `bucketKeyPrefixes`, writes (with aborting their multipart uploads: the SDK's Upload does when a part fails)
 * on `bucketKeyPrefixes` or `bucketWriteKeyPrefix`. Nobody lists or deletes.
 */
export function bucketActionsOf(access: FunctionAccess['access']): Record<string, unknown[]> {
  const granted: Record<string, unknown[]> = {};
  const grant = (actions: string[], prefix: string | undefined) => {
    for (const action of actions) granted[action] = [...(granted[action] ?? []), bucketObjects(prefix)];
  };
  const writes = ['s3:PutObject', 's3:AbortMultipartUpload'];
  for (const prefix of access.bucket ? (access.bucketKeyPrefixes ?? []) : [])
    grant(access.bucket === 'read' ? ['s3:GetObject'] : writes, prefix);
  if (access.bucketWriteKeyPrefix) grant(writes, access.bucketWriteKeyPrefix);
  return granted;
}

/** The distinct values of a list (a key named by two statements, one per encryption context, once). */
export const uniqueJson = (values: unknown[]) =>
  [...new Set(values.map((value) => JSON.stringify(value)))].map((text) => JSON.parse(text));

const SIGNER_ROLE = { read: 'DownloadLinkSignerRole', write: 'UploadLinkSignerRole' } as const;

/** The function's logical id without CDK's hash: its child constructs' ids start with it. */
export const idPrefix = (f: FunctionAccess) => f.fn.id.replace(/[0-9A-F]{8}$/, '');

/** The function's link-signer role: its logical id and its properties, in the function's template. */
export function signerRoleOf(f: FunctionAccess) {
  const roles = f.fn.view
    .ofType('AWS::IAM::Role')
    .filter(([roleId]) =>
      roleId.startsWith(`${idPrefix(f)}${SIGNER_ROLE[f.access.signLinks?.access ?? 'read']}`),
    );
  expect(roles, f.name).toHaveLength(1);
  const [roleId] = roles[0] as [string, CfnResource];
  return { roleId, props: f.fn.view.props(roleId) };
}

/** Every Allow statement attached to a role of the view, by its logical id. */
export const roleStatements = (view: TemplateView, roleId: string) =>
  view
    .ofType('AWS::IAM::Policy')
    .filter(([, p]) => JSON.stringify(p.Properties?.Roles) === JSON.stringify([{ Ref: roleId }]))
    .flatMap(([policyId]) => (view.props(policyId).PolicyDocument as { Statement: unknown[] }).Statement);
