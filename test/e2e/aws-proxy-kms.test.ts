import { randomBytes, randomUUID } from 'node:crypto';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DecryptCommand, EncryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Principal, startAwsProxy } from '../../local/aws-proxy/proxy';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION, type PolicyDocument } from '../../local/cloud/model';
import { useAwsProxy } from '../support/aws-proxy';

/**
 * The local AWS endpoint with real SDK v3 clients against real DynamoDB Local and fauxqs: STS sessions of a role and KMS
 * data keys, authorized by the callers' policies, with AWS's errors.
 */
const aws = useAwsProxy();

describe('STS AssumeRole', () => {
  const signerName = `proxy-${aws.run}-signer`;
  const signerArn = `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/${signerName}`;
  /** The role ARN of a `principal(name)`'s session. */
  const roleOf = (name: string) => `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/${name}-role`;
  const mayAssume: PolicyDocument = {
    Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Resource: signerArn }],
  };
  const stsClients: STSClient[] = [];
  const stsFor = (who: Principal) => {
    const client = new STSClient(aws.clientConfig(who));
    stsClients.push(client);
    return client;
  };
  const assume = (who: Principal, DurationSeconds = 900) =>
    stsFor(who).send(
      new AssumeRoleCommand({ RoleArn: signerArn, RoleSessionName: 'links', DurationSeconds }),
    );

  beforeAll(() => {
    aws.proxy.addRole({
      name: signerName,
      arn: signerArn,
      policies: [
        { Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: `${aws.bucketArn}/reports/*` }] },
      ],
      trustPolicy: {
        Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { AWS: roleOf('link-maker') } }],
      },
    });
  });

  afterAll(() => {
    for (const client of stsClients) client.destroy();
  });

  it("issues credentials that may do what the role's policies allow, until they expire", async () => {
    const caller = aws.principal('link-maker', [mayAssume]);
    aws.proxy.addPrincipal(caller);
    const before = Date.now();
    const { Credentials, AssumedRoleUser } = await assume(caller);
    expect(AssumedRoleUser?.Arn).toBe(`arn:aws:sts::${LOCAL_ACCOUNT_ID}:assumed-role/${signerName}/links`);
    const expiration = Credentials?.Expiration?.getTime() as number;
    expect(expiration).toBeGreaterThanOrEqual(before + 900_000);
    expect(expiration).toBeLessThanOrEqual(Date.now() + 900_000);
    const issued = aws.proxy.principalOf(Credentials?.AccessKeyId as string);
    expect(issued?.expiresAt).toBe(expiration);

    const session = aws.clientsFor(issued as Principal);
    const read = await session.s3.send(
      new GetObjectCommand({ Bucket: aws.names.bucket, Key: 'reports/a b.csv' }),
    );
    expect(await read.Body?.transformToString()).toBe('id,name\n1,x\n');
    const write = await aws.failure(
      session.s3.send(new PutObjectCommand({ Bucket: aws.names.bucket, Key: 'reports/new.csv', Body: 'x' })),
    );
    expect(write.name).toBe('AccessDenied');
    // The caller's own policies are not the session's.
    expect((await aws.failure(session.dynamodb.send(new ListTablesCommand({})))).name).toBe(
      'AccessDeniedException',
    );
  });

  it('denies a caller the trust policy names but whose policies do not allow sts:AssumeRole on the role', async () => {
    const caller = aws.principal('link-maker', [
      { Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Resource: `${signerArn}-other` }] },
    ]);
    aws.proxy.addPrincipal(caller);
    const denied = await aws.failure(assume(caller));
    expect(denied.name).toBe('AccessDenied');
    expect(denied.$metadata?.httpStatusCode).toBe(403);
    expect(denied.message).toBe(
      `User: ${caller.arn} is not authorized to perform: sts:AssumeRole on resource: ${signerArn} because no identity-based policy allows the sts:AssumeRole action`,
    );
  });

  it('denies a caller whose policies allow it but whom the trust policy does not name', async () => {
    const caller = aws.principal('stranger', [mayAssume]);
    aws.proxy.addPrincipal(caller);
    const denied = await aws.failure(assume(caller));
    expect(denied.name).toBe('AccessDenied');
    expect(denied.$metadata?.httpStatusCode).toBe(403);
    expect(denied.message).toContain(
      `is not authorized to perform: sts:AssumeRole on resource: ${signerArn}`,
    );
  });

  it('refuses a session longer than role chaining allows, and expired credentials', async () => {
    const caller = aws.principal('link-maker', [mayAssume]);
    aws.proxy.addPrincipal(caller);
    const tooLong = await aws.failure(assume(caller, 7200));
    expect(tooLong.name).toBe('ValidationError');
    expect(tooLong.$metadata?.httpStatusCode).toBe(400);

    aws.proxy.addPrincipal({ ...caller, expiresAt: Date.now() - 1 });
    const expired = await aws.failure(assume(caller));
    expect(expired.name).toBe('ExpiredToken');
    expect(expired.$metadata?.httpStatusCode).toBe(400);
  });
});

describe('KMS through the proxy', () => {
  const keyArn = `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:key/${randomUUID()}`;
  const otherKeyArn = `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:key/${randomUUID()}`;
  const keySpec = (arn: string, enabled = true) => ({
    logicalId: 'Key',
    stackPath: 'Stack',
    keyId: arn.split('/')[1] as string,
    arn,
    keySpec: 'SYMMETRIC_DEFAULT',
    keyUsage: 'ENCRYPT_DECRYPT',
    enabled,
  });
  const context = { account_id: 'acc_1', webhook_id: 'wh_1' };
  const kmsClients: KMSClient[] = [];
  /** A KMS client as functions have one locally, signing as a principal with these policies. */
  const kmsFor = (policies: Principal['policies'], name = 'kms-user') => {
    const who = aws.principal(name, policies);
    aws.proxy.addPrincipal(who);
    const client = new KMSClient(aws.clientConfig({ ...who, sessionToken: undefined }));
    kmsClients.push(client);
    return { who, client };
  };
  const allow = (action: string, resource = keyArn): PolicyDocument => ({
    Statement: [{ Effect: 'Allow', Action: action, Resource: resource }],
  });
  let both: KMSClient;

  beforeAll(() => {
    aws.proxy.configureKeys([keySpec(keyArn), keySpec(otherKeyArn)]);
    both = kmsFor([allow('kms:GenerateDataKey'), allow('kms:Decrypt'), allow('kms:*', otherKeyArn)]).client;
  });

  afterAll(() => {
    for (const client of kmsClients) client.destroy();
  });

  const generate = (client = both, EncryptionContext: Record<string, string> = context, KeyId = keyArn) =>
    client.send(new GenerateDataKeyCommand({ KeyId, KeySpec: 'AES_256', EncryptionContext }));

  it('generates a 256-bit data key that Decrypt gives back under the same encryption context, in any order', async () => {
    const generated = await generate();
    expect(generated.KeyId).toBe(keyArn);
    expect(generated.Plaintext).toHaveLength(32);
    const blob = generated.CiphertextBlob as Uint8Array;
    // The blob does not carry the data key in the clear.
    expect(Buffer.from(blob).includes(Buffer.from(generated.Plaintext as Uint8Array))).toBe(false);
    const reordered = { webhook_id: 'wh_1', account_id: 'acc_1' };
    const decrypted = await both.send(
      new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: reordered, KeyId: keyArn }),
    );
    expect(Buffer.from(decrypted.Plaintext as Uint8Array)).toEqual(
      Buffer.from(generated.Plaintext as Uint8Array),
    );
    expect(decrypted.KeyId).toBe(keyArn);
    // By key id as well as by ARN; NumberOfBytes instead of KeySpec.
    const byId = await both.send(
      new GenerateDataKeyCommand({ KeyId: keyArn.split('/')[1], NumberOfBytes: 16 }),
    );
    expect(byId.Plaintext).toHaveLength(16);
  });

  it('refuses Decrypt under any other encryption context, as KMS does, with InvalidCiphertextException', async () => {
    const blob = (await generate()).CiphertextBlob as Uint8Array;
    const others: Record<string, string>[] = [
      { account_id: 'acc_1', webhook_id: 'wh_2' },
      { account_id: 'acc_2', webhook_id: 'wh_1' },
      { account_id: 'acc_1' },
      { ...context, extra: 'x' },
      { account_id: 'ACC_1', webhook_id: 'wh_1' },
      {},
    ];
    for (const EncryptionContext of others) {
      const refused = await aws.failure(
        both.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext })),
      );
      expect(refused.name, JSON.stringify(EncryptionContext)).toBe('InvalidCiphertextException');
      expect(refused.$metadata?.httpStatusCode).toBe(400);
    }
    // A blob made without a context opens only without one.
    const bare = (await generate(both, {})).CiphertextBlob as Uint8Array;
    expect((await both.send(new DecryptCommand({ CiphertextBlob: bare }))).Plaintext).toHaveLength(32);
    expect(
      (await aws.failure(both.send(new DecryptCommand({ CiphertextBlob: bare, EncryptionContext: context }))))
        .name,
    ).toBe('InvalidCiphertextException');
  });

  it('refuses a tampered blob, another key named in KeyId, a key not in the deployment, and a disabled key', async () => {
    const blob = Buffer.from((await generate()).CiphertextBlob as Uint8Array);
    const tampered = Buffer.from(blob);
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] as number) ^ 1;
    expect(
      (
        await aws.failure(
          both.send(new DecryptCommand({ CiphertextBlob: tampered, EncryptionContext: context })),
        )
      ).name,
    ).toBe('InvalidCiphertextException');
    expect(
      (
        await aws.failure(
          both.send(new DecryptCommand({ CiphertextBlob: randomBytes(64), EncryptionContext: context })),
        )
      ).name,
    ).toBe('InvalidCiphertextException');
    const wrongKey = await aws.failure(
      both.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context, KeyId: otherKeyArn })),
    );
    expect(wrongKey.name).toBe('IncorrectKeyException');
    const unknown = `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:key/${randomUUID()}`;
    expect((await aws.failure(generate(both, context, unknown))).name).toBe('NotFoundException');
    expect((await aws.failure(generate(both, context, 'alias/secrets'))).name).toBe('NotFoundException');
    aws.proxy.configureKeys([keySpec(keyArn, false), keySpec(otherKeyArn)]);
    try {
      expect((await aws.failure(generate())).name).toBe('DisabledException');
    } finally {
      aws.proxy.configureKeys([keySpec(keyArn), keySpec(otherKeyArn)]);
    }
  });

  it("does not open another runtime's ciphertexts: each runtime has its own master key", async () => {
    const blob = (await generate()).CiphertextBlob as Uint8Array;
    const other = await startAwsProxy({
      dynamodbEndpoint: aws.dynamodbEndpoint,
      awsEndpoint: inject('awsEndpoint'),
    });
    try {
      other.configureKeys([keySpec(keyArn)]);
      const operator = aws.principal('other-operator', 'admin');
      other.addPrincipal(operator);
      const client = new KMSClient(
        aws.clientConfig({ ...operator, sessionToken: undefined }, other.endpoint),
      );
      try {
        const refused = await aws.failure(
          client.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context })),
        );
        expect(refused.name).toBe('InvalidCiphertextException');
      } finally {
        client.destroy();
      }
    } finally {
      await other.close();
    }
  });

  it("checks each call against the caller's policies on the key's ARN: AccessDeniedException otherwise", async () => {
    const blob = (await generate()).CiphertextBlob as Uint8Array;
    const encryptOnly = kmsFor([allow('kms:GenerateDataKey')], 'sealer');
    const decryptOnly = kmsFor([allow('kms:Decrypt')], 'opener');
    const otherKeyOnly = kmsFor([
      allow('kms:Decrypt', otherKeyArn),
      allow('kms:GenerateDataKey', otherKeyArn),
    ]);

    expect((await generate(encryptOnly.client)).Plaintext).toHaveLength(32);
    const cannotDecrypt = await aws.failure(
      encryptOnly.client.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context })),
    );
    expect(cannotDecrypt.name).toBe('AccessDeniedException');
    expect(cannotDecrypt.$metadata?.httpStatusCode).toBe(400);
    expect(cannotDecrypt.message).toBe(
      `User: ${encryptOnly.who.arn} is not authorized to perform: kms:Decrypt on resource: ${keyArn} because no identity-based policy allows the kms:Decrypt action`,
    );

    const opened = await decryptOnly.client.send(
      new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context }),
    );
    expect(opened.Plaintext).toHaveLength(32);
    expect((await aws.failure(generate(decryptOnly.client))).name).toBe('AccessDeniedException');

    // A grant on another key is no grant on this one; Decrypt is authorized on the blob's key.
    expect((await aws.failure(generate(otherKeyOnly.client))).name).toBe('AccessDeniedException');
    expect(
      (
        await aws.failure(
          otherKeyOnly.client.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context })),
        )
      ).name,
    ).toBe('AccessDeniedException');

    // An operation the proxy does not serve is refused, not let through.
    const encrypt = await aws.failure(
      both.send(new EncryptCommand({ KeyId: keyArn, Plaintext: Buffer.from('secret') })),
    );
    expect(encrypt.name).toBe('UnknownOperationException');
  });

  it("checks the policy's conditions on the encryption context: kms:EncryptionContextKeys and each pair", async () => {
    // The webhook secrets key's grant (lib/constructs/service-function.ts): exactly a secret's context names.
    const onlyUnder = (action: string): PolicyDocument => ({
      Statement: [
        {
          Effect: 'Allow',
          Action: action,
          Resource: keyArn,
          Condition: {
            'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['account_id', 'webhook_id'] },
            Null: {
              'kms:EncryptionContext:account_id': 'false',
              'kms:EncryptionContext:webhook_id': 'false',
            },
          },
        },
      ],
    });
    const sealer = kmsFor([onlyUnder('kms:GenerateDataKey')], 'context-sealer').client;
    const opener = kmsFor([onlyUnder('kms:Decrypt')], 'context-opener').client;

    const sealed = await generate(sealer);
    expect(sealed.Plaintext).toHaveLength(32);
    const blob = sealed.CiphertextBlob as Uint8Array;
    const opened = await opener.send(
      new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context }),
    );
    expect(Buffer.from(opened.Plaintext as Uint8Array)).toEqual(Buffer.from(sealed.Plaintext as Uint8Array));

    const refused: Record<string, string>[] = [{}, { ...context, purpose: 'other' }, { account_id: 'acc_1' }];
    for (const other of refused) {
      const denied = await aws.failure(generate(sealer, other));
      expect(denied.name).toBe('AccessDeniedException');
      expect(denied.message).toContain('kms:GenerateDataKey');
    }
    // A blob made under another context is refused by IAM before KMS looks at it.
    const unscoped = (await generate(both, {})).CiphertextBlob as Uint8Array;
    const notOpened = await aws.failure(opener.send(new DecryptCommand({ CiphertextBlob: unscoped })));
    expect(notOpened.name).toBe('AccessDeniedException');
  });
});
