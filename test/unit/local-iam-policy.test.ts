import { describe, expect, inject, it } from 'vitest';
import { readDeployment } from '../../local/cloud/deployment';
import type { PolicyDocument } from '../../local/cloud/model';
import { apiGatewayChecks, s3Operation } from '../../local/iam/actions';
import {
  actionMatches,
  arnMatches,
  evaluate,
  trustDecision,
  UnsupportedPolicyError,
  validatePolicy,
} from '../../local/iam/policy';
import { check, object, other, queue, scope, table } from '../support/iam-requests';

// How the local IAM evaluates policies: trust policies, identity policies (actions, resources, conditions),
// and the synthesized app's function roles. Which checks each request makes: local-iam.test.ts.

describe('trust policy evaluation', () => {
  const caller = { arn: 'arn:aws:iam::000000000000:role/uploader', accountId: '000000000000' };
  const trusting = (AWS: string | string[], Effect: 'Allow' | 'Deny' = 'Allow'): PolicyDocument => ({
    Statement: [{ Effect, Action: 'sts:AssumeRole', Principal: { AWS } }],
  });

  it("allows the role it names, or the caller's account", () => {
    expect(trustDecision(trusting(caller.arn), caller, 'sts:AssumeRole', {})).toBe('Allow');
    expect(trustDecision(trusting('arn:aws:iam::000000000000:root'), caller, 'sts:AssumeRole', {})).toBe(
      'Allow',
    );
  });

  it('denies another role, another action, a service principal, and an explicit Deny', () => {
    const other = 'arn:aws:iam::000000000000:role/other';
    expect(trustDecision(trusting(other), caller, 'sts:AssumeRole', {})).toBe('ImplicitDeny');
    expect(trustDecision(trusting(caller.arn), caller, 'sts:TagSession', {})).toBe('ImplicitDeny');
    const lambda: PolicyDocument = {
      Statement: [
        { Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'lambda.amazonaws.com' } },
      ],
    };
    expect(trustDecision(lambda, caller, 'sts:AssumeRole', {})).toBe('ImplicitDeny');
    const denied = {
      Statement: [...trusting(caller.arn).Statement, ...trusting(caller.arn, 'Deny').Statement],
    };
    expect(trustDecision(denied, caller, 'sts:AssumeRole', {})).toBe('ExplicitDeny');
  });
});

describe('policy evaluation', () => {
  const allow = (Action: string | string[], Resource: string | string[]): PolicyDocument => ({
    Statement: [{ Effect: 'Allow', Action, Resource }],
  });

  it('denies implicitly when nothing allows', () => {
    expect(evaluate([], check('dynamodb:GetItem', table))).toBe('ImplicitDeny');
    expect(evaluate([allow('dynamodb:PutItem', table)], check('dynamodb:GetItem', table))).toBe(
      'ImplicitDeny',
    );
  });

  it('allows what a statement grants, with the grants CDK makes (table and /index/*)', () => {
    const policy = allow(['dynamodb:Query', 'dynamodb:GetItem'], [table, `${table}/index/*`]);
    expect(evaluate([policy], check('dynamodb:Query', `${table}/index/byDriver`))).toBe('Allow');
    expect(evaluate([policy], check('dynamodb:GetItem', table))).toBe('Allow');
    expect(evaluate([policy], check('dynamodb:Query', `${other}/index/byDriver`))).toBe('ImplicitDeny');
  });

  it('lets an explicit Deny win over any Allow', () => {
    const deny: PolicyDocument = { Statement: [{ Effect: 'Deny', Action: 'dynamodb:*', Resource: '*' }] };
    expect(evaluate([allow('dynamodb:GetItem', table), deny], check('dynamodb:GetItem', table))).toBe(
      'ExplicitDeny',
    );
  });

  it('matches actions case-insensitively with * and ?', () => {
    expect(actionMatches('dynamodb:Get*', 'dynamodb:GetItem')).toBe(true);
    expect(actionMatches('DYNAMODB:getitem', 'dynamodb:GetItem')).toBe(true);
    expect(actionMatches('sqs:?endMessage', 'sqs:SendMessage')).toBe(true);
    expect(actionMatches('sqs:Send*', 'sqs:ReceiveMessage')).toBe(false);
    expect(actionMatches('*', 's3:GetObject')).toBe(true);
  });

  it('matches resources case-sensitively; only a * ending an ARN segment crosses colons', () => {
    expect(arnMatches('arn:aws:s3:::exports/*', object)).toBe(true);
    expect(arnMatches('arn:aws:s3:::Exports/*', object)).toBe(false);
    expect(arnMatches('arn:aws:s3:::exports', object)).toBe(false);
    expect(arnMatches('arn:aws:sqs:*:*:imp?rts', queue)).toBe(true);
    expect(arnMatches('arn:aws:sqs:us-east-1:*', queue)).toBe(true);
    expect(arnMatches('arn:aws:sqs:us-east-1:0*s', queue)).toBe(false);
    expect(arnMatches('arn:aws:sqs:us-east-1:0*:imports', queue)).toBe(true);
    expect(arnMatches('*', queue)).toBe(true);
  });

  it('applies NotAction and NotResource', () => {
    const notAction: PolicyDocument = {
      Statement: [{ Effect: 'Allow', NotAction: 'dynamodb:Delete*', Resource: table }],
    };
    expect(evaluate([notAction], check('dynamodb:GetItem', table))).toBe('Allow');
    expect(evaluate([notAction], check('dynamodb:DeleteItem', table))).toBe('ImplicitDeny');
    const notResource: PolicyDocument = {
      Statement: [{ Effect: 'Deny', Action: 's3:*', NotResource: 'arn:aws:s3:::exports/public/*' }],
    };
    expect(evaluate([allow('s3:*', '*'), notResource], check('s3:GetObject', object))).toBe('ExplicitDeny');
    expect(
      evaluate([allow('s3:*', '*'), notResource], check('s3:GetObject', 'arn:aws:s3:::exports/public/x')),
    ).toBe('Allow');
  });

  it('evaluates the conditions a CDK app produces', () => {
    const enforceTls: PolicyDocument = {
      Statement: [
        {
          Effect: 'Deny',
          Action: 'sqs:*',
          Resource: '*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        },
      ],
    };
    const policies = [allow('sqs:*', '*'), enforceTls];
    expect(evaluate(policies, check('sqs:SendMessage', queue), { 'aws:SecureTransport': 'true' })).toBe(
      'Allow',
    );
    expect(evaluate(policies, check('sqs:SendMessage', queue), { 'aws:SecureTransport': 'false' })).toBe(
      'ExplicitDeny',
    );
    const inRegion: PolicyDocument = {
      Statement: [
        {
          Effect: 'Allow',
          Action: '*',
          Resource: '*',
          Condition: { StringEquals: { 'aws:RequestedRegion': ['us-east-1', 'eu-west-1'] } },
        },
      ],
    };
    expect(
      evaluate([inRegion], check('sqs:SendMessage', queue), { 'aws:RequestedRegion': 'us-east-1' }),
    ).toBe('Allow');
    expect(
      evaluate([inRegion], check('sqs:SendMessage', queue), { 'aws:RequestedRegion': 'us-west-2' }),
    ).toBe('ImplicitDeny');
    expect(evaluate([inRegion], check('sqs:SendMessage', queue), {})).toBe('ImplicitDeny');
  });

  it('compares a multivalued key with ForAllValues and ForAnyValue, as IAM does', () => {
    const withCondition = (Condition: Record<string, Record<string, string | string[]>>): PolicyDocument => ({
      Statement: [{ Effect: 'Allow', Action: 'kms:*', Resource: '*', Condition }],
    });
    const keysOf = (...names: string[]) => ({ 'kms:EncryptionContextKeys': names });
    const allOf = withCondition({
      'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['account_id', 'webhook_id'] },
    });
    const decrypt = check('kms:Decrypt', '*');
    expect(evaluate([allOf], decrypt, keysOf('webhook_id', 'account_id'))).toBe('Allow');
    expect(evaluate([allOf], decrypt, keysOf('account_id'))).toBe('Allow');
    expect(evaluate([allOf], decrypt, keysOf('account_id', 'purpose'))).toBe('ImplicitDeny');
    // ForAllValues holds for an absent set: the reason to pair it with a Null check.
    expect(evaluate([allOf], decrypt, {})).toBe('Allow');
    const anyOf = withCondition({ 'ForAnyValue:StringLike': { 'kms:EncryptionContextKeys': 'account_*' } });
    expect(evaluate([anyOf], decrypt, keysOf('purpose', 'account_id'))).toBe('Allow');
    expect(evaluate([anyOf], decrypt, keysOf('purpose'))).toBe('ImplicitDeny');
    expect(evaluate([anyOf], decrypt, {})).toBe('ImplicitDeny');
    const notOther = withCondition({
      'ForAllValues:StringNotEquals': { 'kms:EncryptionContextKeys': 'purpose' },
    });
    expect(evaluate([notOther], decrypt, keysOf('account_id'))).toBe('Allow');
    expect(evaluate([notOther], decrypt, keysOf('account_id', 'purpose'))).toBe('ImplicitDeny');
    const present = withCondition({ Null: { 'kms:EncryptionContext:account_id': 'false' } });
    expect(evaluate([present], decrypt, { 'kms:EncryptionContext:account_id': 'acc_1' })).toBe('Allow');
    expect(evaluate([present], decrypt, {})).toBe('ImplicitDeny');
    expect(() => validatePolicy(allOf)).not.toThrow();
    expect(() => validatePolicy(present)).not.toThrow();
    // A multivalued key compared as one value, and a qualifier on Null, mean nothing IAM defines clearly.
    expect(() =>
      validatePolicy(withCondition({ StringEquals: { 'kms:EncryptionContextKeys': 'account_id' } })),
    ).toThrow(/multivalued/);
    expect(() =>
      validatePolicy(withCondition({ 'ForAllValues:Null': { 'kms:EncryptionContextKeys': 'false' } })),
    ).toThrow(/not supported/);
  });

  it('refuses policies it cannot evaluate faithfully', () => {
    const withCondition = (Condition: Record<string, Record<string, string>>): PolicyDocument => ({
      Statement: [{ Effect: 'Deny', Action: '*', Resource: '*', Condition }],
    });
    expect(() =>
      validatePolicy(withCondition({ DateGreaterThan: { 'aws:CurrentTime': '2020-01-01' } })),
    ).toThrow(UnsupportedPolicyError);
    expect(() => validatePolicy(withCondition({ StringEquals: { 'dynamodb:LeadingKeys': 'x' } }))).toThrow(
      /dynamodb:LeadingKeys is not supported/,
    );
    expect(() => validatePolicy(allow('s3:GetObject', `arn:aws:s3:::b/${'${'}aws:username}/*`))).toThrow(
      /policy variables/,
    );
    expect(() => validatePolicy({ Statement: [{ Effect: 'Allow', Resource: '*' }] })).toThrow(/Action/);
    expect(() =>
      validatePolicy(withCondition({ BoolIfExists: { 'aws:SecureTransport': 'false' } })),
    ).not.toThrow();
  });
});

describe("the synthesized functions' roles", () => {
  const deployment = readDeployment(inject('assemblyDir'), {
    namePrefix: 'iam',
    awsEndpoint: 'http://127.0.0.1',
  });
  const [bucket] = deployment.buckets;
  const policiesOf = (entry: string) => {
    const fn = deployment.functions.find((candidate) => candidate.entry.endsWith(`${entry}/handler.ts`));
    const role = deployment.roles.find((candidate) => candidate.arn === fn?.roleArn);
    if (!role) throw new Error(`no role for ${entry}`);
    return role.policies;
  };
  const decisions = (entry: string, operations: [string, ReturnType<typeof s3Operation>][]) =>
    Object.fromEntries(
      operations.map(([name, { checks }]) => [name, checks.map((one) => evaluate(policiesOf(entry), one))]),
    );
  const request = (method: string, query = '') =>
    s3Operation({
      method,
      bucket: bucket?.name as string,
      key: 'analytics/acc/tx/route_analytics_1.csv',
      query: new URLSearchParams(query),
      headers: {},
    });

  it('let no function create API keys or put them in a usage plan (only the operator registers them)', () => {
    const calls = [
      apiGatewayChecks('POST', '/apikeys', scope),
      apiGatewayChecks('GET', '/apikeys', scope),
      apiGatewayChecks('POST', '/usageplans/plan01/keys', scope),
    ].flatMap(({ checks }) => checks);
    expect(deployment.functions.length).toBeGreaterThan(10);
    for (const fn of deployment.functions) {
      const role = deployment.roles.find((candidate) => candidate.arn === fn.roleArn);
      for (const one of calls) expect(evaluate(role?.policies ?? [], one), fn.entry).toBe('ImplicitDeny');
    }
  });

  it('let the export worker make every call of a streaming upload, aborting one included', () => {
    expect(
      decisions('workers/export-analytics', [
        ['CreateMultipartUpload', request('POST', 'uploads')],
        ['UploadPart', request('PUT', 'partNumber=1&uploadId=u')],
        ['CompleteMultipartUpload', request('POST', 'uploadId=u')],
        ['AbortMultipartUpload', request('DELETE', 'uploadId=u')],
      ]),
    ).toEqual({
      CreateMultipartUpload: ['Allow'],
      UploadPart: ['Allow'],
      CompleteMultipartUpload: ['Allow'],
      AbortMultipartUpload: ['Allow'],
    });
  });

  it('let the link signers do only what their links do, and only their functions assume them', () => {
    const signers = deployment.roles.filter((role) => role.trustedServices.length === 0);
    const functionRole = (entry: string) =>
      deployment.functions.find((candidate) => candidate.entry.endsWith(`${entry}/handler.ts`))
        ?.roleArn as string;
    const signerOf = (entry: string) =>
      signers.find((role) =>
        role.trustPolicy.Statement.some((statement) =>
          JSON.stringify(statement.Principal).includes(functionRole(entry)),
        ),
      );
    const download = signerOf('analytics/download-files');
    const upload = signerOf('routes/upload');
    expect(download && upload).toBeDefined();
    expect(new Set(signers)).toEqual(new Set([download, upload]));
    const object = (key: string) => `arn:aws:s3:::${bucket?.name}/${key}`;
    const decide = (policies: PolicyDocument[] | undefined, action: string, key: string) =>
      evaluate(policies ?? [], check(action, object(key)));
    expect(decide(download?.policies, 's3:GetObject', 'analytics/a/t/f.csv')).toBe('Allow');
    expect(decide(download?.policies, 's3:GetObject', 'uploads/a/t.json')).toBe('ImplicitDeny');
    expect(decide(download?.policies, 's3:PutObject', 'analytics/a/t/f.csv')).toBe('ImplicitDeny');
    expect(decide(upload?.policies, 's3:PutObject', 'uploads/a/t.json')).toBe('Allow');
    expect(decide(upload?.policies, 's3:PutObject', 'imports/a/t.json')).toBe('ImplicitDeny');
    expect(decide(upload?.policies, 's3:GetObject', 'uploads/a/t.json')).toBe('ImplicitDeny');
    const assume = (signer: typeof download) => check('sts:AssumeRole', signer?.arn as string);
    expect(evaluate(policiesOf('analytics/download-files'), assume(download))).toBe('Allow');
    expect(evaluate(policiesOf('analytics/download-files'), assume(upload))).toBe('ImplicitDeny');
    expect(evaluate(policiesOf('routes/upload'), assume(upload))).toBe('Allow');
    expect(evaluate(policiesOf('routes/import'), assume(upload))).toBe('ImplicitDeny');
    const caller = (entry: string) => ({ arn: functionRole(entry), accountId: deployment.accountId });
    const trusts = (signer: typeof download, entry: string) =>
      trustDecision(signer?.trustPolicy as PolicyDocument, caller(entry), 'sts:AssumeRole', {});
    expect(trusts(upload, 'routes/upload')).toBe('Allow');
    expect(trusts(upload, 'analytics/download-files')).toBe('ImplicitDeny');
    expect(trusts(download, 'analytics/download-files')).toBe('Allow');
  });

  it('let exactly webhook creation and rotation make webhook secrets, and only the delivery worker read them', () => {
    const keys = deployment.keys.filter((key) => key.logicalId.startsWith('WebhookSecretsKey'));
    expect(keys).toHaveLength(1);
    const key = keys[0]?.arn as string;
    // The condition keys KMS sets for a call with this encryption context.
    const kmsContext = (context: Record<string, string>) =>
      Object.keys(context).length === 0
        ? {}
        : {
            'kms:EncryptionContextKeys': Object.keys(context),
            ...Object.fromEntries(
              Object.entries(context).map(([name, value]) => [`kms:EncryptionContext:${name}`, value]),
            ),
          };
    const secretContext = { account_id: 'acc_1', webhook_id: 'wh_1' };
    const may = (action: string, context: Record<string, string> = secretContext) =>
      deployment.functions
        .filter((fn) => {
          const role = deployment.roles.find((candidate) => candidate.arn === fn.roleArn);
          return evaluate(role?.policies ?? [], check(action, key), kmsContext(context)) === 'Allow';
        })
        .map((fn) => fn.entry.replace(/^functions\/(api\/)?|\/handler\.ts$/g, ''))
        .sort();
    expect(may('kms:GenerateDataKey')).toEqual(['webhooks/create', 'webhooks/rotate-secret']);
    expect(may('kms:Decrypt')).toEqual(['workers/deliver-webhooks']);
    expect(may('kms:Encrypt')).toEqual([]);
    // Only under a webhook secret's encryption context: none, one more name or one name less is refused.
    const refused: Record<string, string>[] = [
      {},
      { ...secretContext, purpose: 'other' },
      { account_id: 'acc_1' },
    ];
    for (const context of refused) {
      expect(may('kms:GenerateDataKey', context)).toEqual([]);
      expect(may('kms:Decrypt', context)).toEqual([]);
    }
  });

  it('let no function delete or list what the bucket holds', () => {
    expect(
      decisions('workers/export-analytics', [
        ['DeleteObject', request('DELETE')],
        ['ListParts', request('GET', 'uploadId=u')],
      ]),
    ).toEqual({ DeleteObject: ['ImplicitDeny'], ListParts: ['ImplicitDeny'] });
  });
});
