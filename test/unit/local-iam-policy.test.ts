import { describe, expect, it } from 'vitest';
import type { PolicyDocument } from '../../local/cloud/model';
import {
  actionMatches,
  arnMatches,
  evaluate,
  trustDecision,
  UnsupportedPolicyError,
  validatePolicy,
} from '../../local/iam/policy';
import { check, object, other, queue, table } from '../support/iam-requests';

// How the local IAM evaluates policies: trust policies, identity policies (actions, resources, conditions).
// Which checks each request makes: local-iam.test.ts; the synthesized app's roles: test/cdk/function-roles.test.ts.

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
