import { describe, expect, it } from 'vitest';
import { readDeployment } from '../../local/cloud/deployment';
import type { PolicyDocument } from '../../local/cloud/model';
import { apiGatewayChecks, dynamodbChecks } from '../../local/iam/actions';
import { evaluate, trustDecision } from '../../local/iam/policy';
import { s3Operation } from '../../local/iam/s3-actions';
import { check, scope } from '../support/iam-requests';
import { synthesize } from './synth';

// What the synthesized app's function roles allow, decided by the local runtime's IAM evaluation (how it
// evaluates: test/unit/local-iam-policy.test.ts).

describe("the synthesized functions' roles", () => {
  const deployment = readDeployment(synthesize().assembly.directory, {
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
    const proofUpload = signerOf('driver-app/proofs');
    const proofDownload = signerOf('routes/proofs');
    expect(proofUpload && proofDownload).toBeDefined();
    const evidenceDownload = signerOf('routes/evidence');
    expect(evidenceDownload).toBeDefined();
    expect(new Set(signers)).toEqual(
      new Set([download, upload, proofUpload, proofDownload, evidenceDownload]),
    );
    const object = (key: string) => `arn:aws:s3:::${bucket?.name}/${key}`;
    const decide = (
      policies: PolicyDocument[] | undefined,
      action: string,
      key: string,
      context: Record<string, string> = {},
    ) => evaluate(policies ?? [], check(action, object(key)), context);
    expect(decide(download?.policies, 's3:GetObject', 'analytics/a/t/f.csv')).toBe('Allow');
    expect(decide(download?.policies, 's3:GetObject', 'uploads/a/t.json')).toBe('ImplicitDeny');
    expect(decide(download?.policies, 's3:PutObject', 'analytics/a/t/f.csv')).toBe('ImplicitDeny');
    expect(decide(upload?.policies, 's3:PutObject', 'uploads/a/t.json')).toBe('Allow');
    expect(decide(upload?.policies, 's3:PutObject', 'imports/a/t.json')).toBe('ImplicitDeny');
    expect(decide(upload?.policies, 's3:GetObject', 'uploads/a/t.json')).toBe('ImplicitDeny');
    // Proof upload links only create their object: a PUT without If-None-Match is refused outright.
    expect(
      decide(proofUpload?.policies, 's3:PutObject', 'proofs/a/r/00000/p', { 's3:if-none-match': '*' }),
    ).toBe('Allow');
    expect(decide(proofUpload?.policies, 's3:PutObject', 'proofs/a/r/00000/p')).toBe('ExplicitDeny');
    expect(decide(upload?.policies, 's3:PutObject', 'uploads/a/t.json', { 's3:if-none-match': '*' })).toBe(
      'Allow',
    );
    expect(decide(proofUpload?.policies, 's3:PutObject', 'uploads/a/t.json')).toBe('ImplicitDeny');
    expect(decide(proofUpload?.policies, 's3:GetObject', 'proofs/a/r/00000/p')).toBe('ImplicitDeny');
    expect(decide(proofDownload?.policies, 's3:GetObject', 'proofs/a/r/00000/p')).toBe('Allow');
    expect(decide(proofDownload?.policies, 's3:GetObject', 'analytics/a/t/f.csv')).toBe('ImplicitDeny');
    expect(decide(proofDownload?.policies, 's3:PutObject', 'proofs/a/r/00000/p')).toBe('ImplicitDeny');
    const note = 'proofs/delivery-notes/a/r/0123.pdf';
    expect(decide(evidenceDownload?.policies, 's3:GetObject', 'proofs/a/r/00000/p')).toBe('Allow');
    expect(decide(evidenceDownload?.policies, 's3:GetObject', note)).toBe('Allow');
    expect(decide(evidenceDownload?.policies, 's3:PutObject', note)).toBe('ImplicitDeny');
    // The evidence function itself reads proofs and writes notes, and overwrites no proof.
    const evidence = policiesOf('routes/evidence');
    expect(evaluate(evidence, check('s3:GetObject', object('proofs/a/r/00000/p')))).toBe('Allow');
    expect(evaluate(evidence, check('s3:PutObject', object(note)))).toBe('Allow');
    expect(evaluate(evidence, check('s3:PutObject', object('proofs/a/r/00000/p')))).toBe('ImplicitDeny');
    expect(evaluate(evidence, check('s3:GetObject', object('analytics/a/t/f.csv')))).toBe('ImplicitDeny');
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

  it('let exactly webhook creation and rotation make webhook secrets, only the delivery worker read them, and stop PINs only under their own context', () => {
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

    // Stop PINs, under the same key with their route as context: the import worker and the reset draw them,
    // the start and the tracking page open them. None of them opens a webhook secret, nor any webhook
    // function a PIN, and the driver app's attempt (which checks a PIN's hash) neither.
    const pinContext = { account_id: 'acc_1', route_id: 'R-1' };
    expect(may('kms:GenerateDataKey', pinContext)).toEqual(['routes/reset-pin', 'workers/import-routes']);
    expect(may('kms:Decrypt', pinContext)).toEqual(['driver-app/start', 'routes/start', 'tracking/page']);
    for (const context of [{ ...pinContext, webhook_id: 'wh_1' }, { route_id: 'R-1' }]) {
      expect(may('kms:GenerateDataKey', context)).toEqual([]);
      expect(may('kms:Decrypt', context)).toEqual([]);
    }
  });

  it('let only the import worker, which takes id claims, insert with PartiQL, and only into the table', () => {
    const [table] = deployment.tables;
    const insertInto = (into: string) =>
      dynamodbChecks(
        'DynamoDB_20120810.BatchExecuteStatement',
        { Statements: [{ Statement: `INSERT INTO "${into}" VALUE {'pk': ?}`, Parameters: [{ S: 'a' }] }] },
        scope,
      );
    const may = (checks: ReturnType<typeof insertInto>) =>
      deployment.functions
        .filter((fn) => {
          const role = deployment.roles.find((candidate) => candidate.arn === fn.roleArn);
          return checks.every((one) => evaluate(role?.policies ?? [], one) === 'Allow');
        })
        .map((fn) => fn.entry.replace(/^functions\/(api\/)?|\/handler\.ts$/g, ''));
    expect(may(insertInto(table?.name as string))).toEqual(['workers/import-routes']);
    expect(may(insertInto('another-table'))).toEqual([]);
    // No other PartiQL statement: the grant is the one action.
    const otherPartiql = ['dynamodb:PartiQLSelect', 'dynamodb:PartiQLUpdate', 'dynamodb:PartiQLDelete'];
    const worker = policiesOf('workers/import-routes');
    for (const action of otherPartiql)
      expect(evaluate(worker, check(action, insertInto(table?.name as string)[0]?.resource as string))).toBe(
        'ImplicitDeny',
      );
  });

  it('let each function reach only the bucket prefixes its code uses: none the whole bucket', () => {
    const object = (key: string) => `arn:aws:s3:::${bucket?.name}/${key}`;
    const may = (action: string, key: string) =>
      deployment.functions
        .filter((fn) => {
          const role = deployment.roles.find((candidate) => candidate.arn === fn.roleArn);
          return evaluate(role?.policies ?? [], check(action, object(key))) === 'Allow';
        })
        .map((fn) => fn.entry.replace(/^functions\/(api\/)?|\/handler\.ts$/g, ''))
        .sort();
    const importWorkers = [
      'workers/end-dead-letter-imports',
      'workers/end-overdue-imports',
      'workers/import-routes',
    ];
    // A tenant's proofs: read by their check and the evidence read only; written by no function (links only).
    expect(may('s3:GetObject', 'proofs/acc/route/00000/prf_1')).toEqual([
      'routes/evidence',
      'workers/check-proofs',
    ]);
    expect(may('s3:PutObject', 'proofs/acc/route/00000/prf_1')).toEqual([]);
    expect(may('s3:PutObject', 'proofs/delivery-notes/acc/route/h.pdf')).toEqual(['routes/evidence']);
    // Import bodies: written by the import and revision POSTs, read by the import workers.
    expect(may('s3:PutObject', 'imports/acc/imp_1.json')).toEqual(['routes/import', 'routes/revise']);
    expect(may('s3:GetObject', 'imports/acc/imp_1.json')).toEqual(importWorkers);
    // Uploads come through links only: no function can start an import by writing one.
    expect(may('s3:PutObject', 'uploads/acc/imp_1.json')).toEqual([]);
    expect(may('s3:GetObject', 'uploads/acc/imp_1.json')).toEqual(importWorkers);
    expect(may('s3:PutObject', 'revisions/acc/rev_1.before.json')).toEqual(['workers/import-routes']);
    expect(may('s3:GetObject', 'revisions/acc/rev_1.before.json')).toEqual(importWorkers);
    expect(may('s3:PutObject', 'analytics/acc/tx/f.csv')).toEqual(['workers/export-analytics']);
    expect(may('s3:GetObject', 'analytics/acc/tx/f.csv')).toEqual([]);
    expect(may('s3:GetObject', 'elsewhere/x')).toEqual([]);
    expect(may('s3:PutObject', 'elsewhere/x')).toEqual([]);
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
