import { describe, expect, it } from 'vitest';
import type { EndpointDefinition } from '../../functions/api/define';
import { endpoints } from '../../functions/api/index';
import { importRoute } from '../../functions/api/routes/index';
import * as channels from '../../functions/models/channels';
import {
  ANALYTICS_FILES_PREFIX,
  DELIVERY_NOTES_PREFIX,
  IMPORT_PAYLOADS_PREFIX,
  IMPORT_UPLOADS_PREFIX,
  PROOFS_PREFIX,
  RECIPIENT_CONTEXT_KEYS,
  RESOURCE_ENV,
  REVISION_IMAGES_PREFIX,
  STOP_PIN_CONTEXT_KEYS,
  WEBHOOK_SECRET_CONTEXT_KEYS,
} from '../../functions/shared/resources';
import type { ConsumerDefinition } from '../../functions/workers/define';
import { consumers } from '../../functions/workers/index';
import { sliceOf } from '../../lib/slices';
import { bucketActionsOf, idPrefix, roleStatements, signerRoleOf, uniqueJson } from './api-access';
import {
  accessByFunction,
  allFunctions,
  allowedActions,
  allowStatements,
  api,
  authorizerFunctionOf,
  bucketArn,
  bucketObjects,
  consumerFunctionOf,
  deadLetterArn,
  deadLetterUrl,
  environmentOf,
  functionOf,
  importOf,
  QUEUE_URL_ENVS,
  queueArn,
  queueUrl,
  READ_ACTIONS,
  resourcesAllowed,
  stateful,
  usedAuthKinds,
  viewOf,
  WRITE_ACTIONS,
} from './api-template';
import { synthesize } from './synth';

describe('table access', () => {
  const byAccess = (access: EndpointDefinition['access']['table']) => [
    ...new Set(endpoints.filter((e) => e.access.table === access).map((e) => sliceOf(e.module).name)),
  ];

  it.each(byAccess('read'))("%s (access 'read') may only read the table", (handler) => {
    const dynamo = allowedActions(functionOf(handler)).filter((a) => a.startsWith('dynamodb:'));
    expect(dynamo).toContain('dynamodb:GetItem');
    expect(dynamo).toContain('dynamodb:Query');
    expect(dynamo.filter((a) => !READ_ACTIONS.has(a))).toEqual([]);
    expect(environmentOf(functionOf(handler))).toMatchObject({ [RESOURCE_ENV.table]: expect.anything() });
  });

  it.each(byAccess('readWrite'))("%s (access 'readWrite') may read and write the table", (handler) => {
    const actions = allowedActions(functionOf(handler));
    for (const action of [...WRITE_ACTIONS, 'dynamodb:GetItem', 'dynamodb:Query'])
      expect(actions).toContain(action);
    expect(environmentOf(functionOf(handler))).toMatchObject({ [RESOURCE_ENV.table]: expect.anything() });
  });

  it.each(byAccess(undefined))(
    '%s (no table access) gets no DynamoDB permission and no table name',
    (handler) => {
      expect(allowedActions(functionOf(handler)).filter((a) => a.startsWith('dynamodb:'))).toEqual([]);
      expect(environmentOf(functionOf(handler))[RESOURCE_ENV.table]).toBeUndefined();
    },
  );

  it.each(usedAuthKinds)('the %s authorizer may only read the table', (kind) => {
    const dynamo = allowedActions(authorizerFunctionOf(kind)).filter((a) => a.startsWith('dynamodb:'));
    expect(dynamo).toContain('dynamodb:GetItem');
    expect(dynamo.filter((a) => !READ_ACTIONS.has(a))).toEqual([]);
  });

  it('no function role allows a wildcard action', () => {
    for (const fn of allFunctions) {
      expect(
        allowedActions(fn).filter((a) => a.includes('*')),
        fn.id,
      ).toEqual([]);
    }
  });
});

describe('bucket access', () => {
  const withoutBucket = accessByFunction.filter((f) => !f.access.bucket && !f.access.signLinks);
  const withBucket = accessByFunction.filter((f) => f.access.bucket);

  it.each(withoutBucket)('$name (no bucket access) gets no S3 permission and no bucket name', (f) => {
    expect(allowedActions(f.fn).filter((a) => a.startsWith('s3:'))).toEqual([]);
    expect(environmentOf(f.fn)[RESOURCE_ENV.bucket]).toBeUndefined();
  });

  it.each(withBucket)(
    "$name (bucket '$access.bucket') gets that access's object actions, on its key prefixes, and the name",
    (f) => {
      const granted = bucketActionsOf(f.access);
      // In any order: cdk.json's minimizePolicies sorts the actions of a statement.
      expect(
        allowedActions(f.fn)
          .filter((a) => a.startsWith('s3:'))
          .sort(),
      ).toEqual(Object.keys(granted).sort());
      // In any order too: minimizePolicies merges the statements of one action.
      const sorted = (resources: unknown[]) => resources.map((r) => JSON.stringify(r)).sort();
      for (const [action, resources] of Object.entries(granted))
        expect(sorted(resourcesAllowed(f.fn, action))).toEqual(sorted(resources));
      const variables = environmentOf(f.fn);
      expect(variables[RESOURCE_ENV.bucket]).toBeDefined();
      expect(JSON.stringify(variables[RESOURCE_ENV.bucket])).toContain(JSON.stringify(bucketArn));
      // Path-style addressing is for the local S3 emulator only.
      expect(variables.S3_FORCE_PATH_STYLE).toBeUndefined();
    },
  );

  it('lets the evidence read proofs and write delivery notes, and no proof', () => {
    const evidence = accessByFunction.find((f) => f.name === 'routes/evidence');
    expect(evidence && resourcesAllowed(evidence.fn, 's3:GetObject')).toEqual([bucketObjects(PROOFS_PREFIX)]);
    expect(evidence && resourcesAllowed(evidence.fn, 's3:PutObject')).toEqual([
      bucketObjects(DELIVERY_NOTES_PREFIX),
    ]);
  });
});

describe('link signing', () => {
  const signers = accessByFunction.filter((f) => f.access.signLinks);
  const others = accessByFunction.filter((f) => !f.access.signLinks);
  const LINK_ACTION = { read: 's3:GetObject', write: 's3:PutObject' } as const;

  it('is what the download-files, upload, proof and evidence endpoints do, and only they', () => {
    expect(signers.map((f) => [f.name, f.access.signLinks])).toEqual(
      expect.arrayContaining([
        ['routes/upload', { access: 'write', keyPrefix: IMPORT_UPLOADS_PREFIX }],
        ['analytics/download-files', { access: 'read', keyPrefix: ANALYTICS_FILES_PREFIX }],
        ['driver-app/proofs', { access: 'write', keyPrefix: PROOFS_PREFIX, createOnly: true }],
        ['routes/proofs', { access: 'read', keyPrefix: PROOFS_PREFIX }],
        ['routes/evidence', { access: 'read', keyPrefix: PROOFS_PREFIX }],
      ]),
    );
    expect(signers).toHaveLength(5);
  });

  it.each(signers)('$name signs with a role that may only do what its links do, on their prefix', (f) => {
    const access = f.access.signLinks?.access ?? 'read';
    const { roleId } = signerRoleOf(f);
    const allow = {
      Effect: 'Allow',
      Action: LINK_ACTION[access],
      Resource: bucketObjects(f.access.signLinks?.keyPrefix),
    };
    // A create-only signer (proof uploads) is refused a PutObject that does not send If-None-Match.
    const createOnly = {
      Sid: 'CreateOnly',
      Effect: 'Deny',
      Action: 's3:PutObject',
      Resource: bucketObjects(f.access.signLinks?.keyPrefix),
      Condition: { Null: { 's3:if-none-match': 'true' } },
    };
    expect(roleStatements(f.fn.view, roleId)).toEqual(
      f.access.signLinks?.createOnly ? [allow, createOnly] : [allow],
    );
  });

  it.each(signers)("$name's signer role trusts only the function's own role", (f) => {
    const { props } = signerRoleOf(f);
    const functionRole = (f.fn.view.props(f.fn.id).Role as { 'Fn::GetAtt': [string, string] })[
      'Fn::GetAtt'
    ][0];
    expect(props.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: 'sts:AssumeRole',
          Principal: { AWS: { 'Fn::GetAtt': [functionRole, 'Arn'] } },
        },
      ],
    });
    expect(props.ManagedPolicyArns).toBeUndefined();
  });

  it.each(signers)(
    '$name may assume exactly its signer role, knows its ARN, and has no S3 action of its own beyond its bucket access',
    (f) => {
      const { roleId } = signerRoleOf(f);
      expect(resourcesAllowed(f.fn, 'sts:AssumeRole')).toEqual([{ 'Fn::GetAtt': [roleId, 'Arn'] }]);
      expect(allowedActions(f.fn).filter((a) => a.startsWith('sts:'))).toEqual(['sts:AssumeRole']);
      expect(
        allowedActions(f.fn)
          .filter((a) => a.startsWith('s3:'))
          .sort(),
      ).toEqual(Object.keys(bucketActionsOf(f.access)).sort());
      expect(environmentOf(f.fn)[RESOURCE_ENV.linkSignerRoleArn]).toEqual({ 'Fn::GetAtt': [roleId, 'Arn'] });
      expect(JSON.stringify(environmentOf(f.fn)[RESOURCE_ENV.bucket])).toContain(JSON.stringify(bucketArn));
    },
  );

  it.each(others)('$name (no link signing) may assume no role and has no signer role', (f) => {
    expect(allowedActions(f.fn).filter((a) => a.startsWith('sts:'))).toEqual([]);
    expect(environmentOf(f.fn)[RESOURCE_ENV.linkSignerRoleArn]).toBeUndefined();
    expect(
      f.fn.view
        .ofType('AWS::IAM::Role')
        .filter(([roleId]) => roleId.startsWith(idPrefix(f)) && roleId.includes('LinkSigner')),
    ).toEqual([]);
  });
});

describe('queue access', () => {
  it.each(accessByFunction)('$name may send to exactly the queues (and DLQs) its access names', (f) => {
    const sendTo = [...new Set(f.access.sendTo ?? [])];
    const sendToDeadLetter = [...new Set(f.access.sendToDeadLetter ?? [])];
    expect(
      resourcesAllowed(f.fn, 'sqs:SendMessage')
        .map((r) => JSON.stringify(r))
        .sort(),
    ).toEqual(
      [...sendTo.map(queueArn), ...sendToDeadLetter.map(deadLetterArn)].map((r) => JSON.stringify(r)).sort(),
    );
    const variables = environmentOf(f.fn);
    for (const channel of sendTo) expect(variables[channel.urlEnv]).toEqual(queueUrl(channel));
    for (const channel of sendToDeadLetter)
      expect(variables[channel.deadLetterUrlEnv]).toEqual(deadLetterUrl(channel));
    const expectedEnvs = new Set([
      ...sendTo.map((channel) => channel.urlEnv),
      ...sendToDeadLetter.map((channel) => channel.deadLetterUrlEnv),
    ]);
    for (const env of QUEUE_URL_ENVS.filter((name) => !expectedEnvs.has(name))) {
      expect(variables[env], env).toBeUndefined();
    }
  });
});

describe('webhook secrets key', () => {
  const keyArn = importOf(stateful.exports.webhookSecretsKeyArnExportName);
  const kmsActions = (f: (typeof accessByFunction)[number]) =>
    allowedActions(f.fn).filter((action) => action.startsWith('kms:'));
  /** Its use's one KMS action (encrypt: GenerateDataKey, decrypt: Decrypt) on that key only, and the key's ARN. */
  const expectOnlyKmsActionOf = (f: (typeof accessByFunction)[number], use: 'encrypt' | 'decrypt') => {
    const action = use === 'encrypt' ? 'kms:GenerateDataKey' : 'kms:Decrypt';
    // The import worker seals stop PINs and recipients with the same action, under two contexts.
    expect([...new Set(kmsActions(f))]).toEqual([action]);
    expect(uniqueJson(resourcesAllowed(f.fn, action))).toEqual([keyArn]);
    expect(environmentOf(f.fn)[RESOURCE_ENV.webhookSecretsKeyArn]).toEqual(keyArn);
  };

  it('is what webhook creation and rotation (encrypt) and the delivery worker (decrypt) use, and only they', () => {
    expect(
      accessByFunction.filter((f) => f.access.webhookSecrets).map((f) => [f.name, f.access.webhookSecrets]),
    ).toEqual([
      ['webhooks/create', 'encrypt'],
      ['webhooks/rotate-secret', 'encrypt'],
      ['consumer deliverWebhooks', 'decrypt'],
    ]);
  });

  it.each(accessByFunction.filter((f) => f.access.webhookSecrets || f.access.recipients))(
    '$name may do its one KMS action on that key only, and knows its ARN',
    (f) =>
      expectOnlyKmsActionOf(f, (f.access.webhookSecrets ?? f.access.recipients) as 'encrypt' | 'decrypt'),
  );

  it('is what the import worker and the PIN reset (encrypt), the starts and the tracking page (decrypt) use for stop PINs, and only they', () => {
    const pinFunctions = accessByFunction.filter((f) => f.access.stopPins);
    expect(pinFunctions.map((f) => [f.name, f.access.stopPins]).sort()).toEqual([
      ['consumer importRoutes', 'encrypt'],
      ['driver-app/start', 'decrypt'],
      ['routes/reset-pin', 'encrypt'],
      ['routes/start', 'decrypt'],
      ['tracking/page', 'decrypt'],
    ]);
  });

  it.each(accessByFunction.filter((f) => f.access.stopPins))(
    '$name may do its one KMS action on that key for stop PINs only, and knows its ARN',
    (f) => expectOnlyKmsActionOf(f, f.access.stopPins as 'encrypt' | 'decrypt'),
  );

  it('seals recipients in the import worker (encrypt) and opens them in the notifications worker and the unsubscribe link (decrypt) only', () => {
    expect(
      accessByFunction
        .filter((f) => f.access.recipients)
        .map((f) => [f.name, f.access.recipients])
        .sort(),
    ).toEqual([
      ['consumer importRoutes', 'encrypt'],
      ['consumer sendNotifications', 'decrypt'],
      ['tracking/unsubscribe', 'decrypt'],
    ]);
  });

  it.each(
    accessByFunction.filter((f) => f.access.webhookSecrets || f.access.stopPins || f.access.recipients),
  )('$name may use the key under its kinds’ encryption contexts only', (f) => {
    const kms = allowStatements(f.fn).filter((s) => s.Action.some((action) => action.startsWith('kms:')));
    const contexts = kms.map(
      (s) =>
        (s.Condition as { 'ForAllValues:StringEquals': Record<string, string[]> })[
          'ForAllValues:StringEquals'
        ]['kms:EncryptionContextKeys'],
    );
    expect(contexts).toEqual([
      ...(f.access.webhookSecrets ? [[...WEBHOOK_SECRET_CONTEXT_KEYS]] : []),
      ...(f.access.stopPins ? [[...STOP_PIN_CONTEXT_KEYS]] : []),
      ...(f.access.recipients ? [[...RECIPIENT_CONTEXT_KEYS]] : []),
    ]);
  });

  it.each(
    accessByFunction.filter((f) => !f.access.webhookSecrets && !f.access.stopPins && !f.access.recipients),
  )('$name (no webhookSecrets, stopPins or recipients access) gets no KMS permission and no key ARN', (f) => {
    expect(kmsActions(f)).toEqual([]);
    expect(environmentOf(f.fn)[RESOURCE_ENV.webhookSecretsKeyArn]).toBeUndefined();
  });

  it.each(usedAuthKinds)('the %s authorizer gets no KMS permission', (kind) => {
    expect(allowedActions(authorizerFunctionOf(kind)).filter((a) => a.startsWith('kms:'))).toEqual([]);
  });
});

describe('shared handlers', () => {
  it('refuses endpoints that share a handler but declare different access', () => {
    const other = {
      ...importRoute,
      operationId: 'importRouteCopy',
      method: 'PUT' as const,
      access: { table: 'readWrite' as const },
    };
    expect(() => synthesize({}, { endpoints: [importRoute, other] })).toThrow(/different access/);
  });
});

describe('importRoute', () => {
  const id = functionOf(sliceOf(importRoute.module).name);

  it('is served, with the access this test expects', () => {
    expect(endpoints.map((e) => e.operationId)).toContain(importRoute.operationId);
    expect(importRoute.access).toEqual({
      table: 'readWrite',
      bucket: 'write',
      bucketKeyPrefixes: [IMPORT_PAYLOADS_PREFIX],
      sendTo: [channels.imports, channels.importDeadlines],
    });
  });

  it('may put the payload object but not read objects back', () => {
    expect(allowedActions(id)).toContain('s3:PutObject');
    expect(allowedActions(id)).not.toContain('s3:GetObject');
    expect(environmentOf(id)[RESOURCE_ENV.bucket]).toBeDefined();
  });

  it('may send to the imports and import deadlines queues only, and knows their URLs', () => {
    const sqs = allowStatements(id).filter((s) => s.Action.some((a) => a.startsWith('sqs:')));
    expect(sqs.flatMap((s) => s.Action)).toContain('sqs:SendMessage');
    expect(sqs.flatMap((s) => s.Resource)).toHaveLength(2);
    expect(sqs.flatMap((s) => s.Resource)).toEqual(
      expect.arrayContaining([queueArn(channels.imports), queueArn(channels.importDeadlines)]),
    );
    for (const channel of [channels.imports, channels.importDeadlines])
      expect(environmentOf(id)[channel.urlEnv]).toEqual(queueUrl(channel));
  });
});

describe('queue consumers', () => {
  const consumerView = viewOf(api.consumers);
  const mappings = consumerView.ofType('AWS::Lambda::EventSourceMapping');

  it('has one event source mapping per consumer and no others', () => {
    expect(mappings).toHaveLength(consumers.length);
  });

  /** The ARN of the queue a consumer reads: its queue, or that queue's DLQ. */
  const sourceArn = (c: ConsumerDefinition) => (c.deadLetters ? deadLetterArn(c.queue) : queueArn(c.queue));

  it.each(consumers)(
    '$id consumes its queue (of $queue) in batches of $batchSize, at most $maxConcurrency at once, with partial failures',
    (c) => {
      const { id } = consumerFunctionOf(c.id);
      const mine = mappings.filter(
        ([, m]) => JSON.stringify(m.Properties?.FunctionName) === JSON.stringify({ Ref: id }),
      );
      expect(mine).toHaveLength(1);
      expect(mine[0]?.[1].Properties).toMatchObject({
        EventSourceArn: sourceArn(c),
        BatchSize: c.batchSize,
        ScalingConfig: { MaximumConcurrency: c.maxConcurrency },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    },
  );

  it.each(consumers)('$id runs $handler with its timeout and memory', (c) => {
    const fn = consumerFunctionOf(c.id);
    expect(fn.fn.sliceName).toBe(sliceOf(c.module).name);
    expect(fn.view.props(fn.id)).toMatchObject({ Timeout: c.timeoutSeconds, MemorySize: c.memorySize });
  });

  it.each(consumers)('$id runs with exactly its own V8 flags, if any', (c) => {
    expect(environmentOf(consumerFunctionOf(c.id)).NODE_OPTIONS).toBe(c.nodeOptions);
  });

  it.each(consumers)(
    "$id's queue (or DLQ) keeps a message invisible at least six times the function's timeout",
    (c) => {
      const fn = consumerFunctionOf(c.id);
      const timeout = fn.view.props(fn.id).Timeout as number;
      const visibility = c.deadLetters
        ? c.queue.consumedDeadLetters?.visibilityTimeoutSeconds
        : c.queue.visibilityTimeoutSeconds;
      expect(visibility).toBeGreaterThanOrEqual(6 * timeout);
    },
  );

  it.each(consumers)('$id may receive and delete messages of the queue it reads only', (c) => {
    const id = consumerFunctionOf(c.id);
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility'])
      expect(resourcesAllowed(id, action), action).toEqual([sourceArn(c)]);
  });

  it('refuses a consumer of a DLQ whose queue gives it no visibility timeout', () => {
    const reader = {
      ...(consumers[0] as ConsumerDefinition),
      queue: channels.deletions,
      deadLetters: true as const,
    };
    expect(() => synthesize({}, { consumers: [reader] })).toThrow(/consumedDeadLetters/);
  });

  it("refuses a consumer whose timeout is more than a sixth of its queue's visibility timeout", () => {
    const [first] = consumers;
    expect(first).toBeDefined();
    const slow = {
      ...(first as ConsumerDefinition),
      timeoutSeconds: (first?.queue ?? channels.imports).visibilityTimeoutSeconds / 6 + 1,
    };
    expect(() => synthesize({}, { consumers: [slow] })).toThrow(/at least 6 times/);
  });

  it('the import worker reads import payloads, writes revisions’ before images under their own prefix only, writes the table and links to the API', () => {
    const worker = consumers.find((c) => sliceOf(c.module).name === 'workers/import-routes');
    expect(worker, 'no consumer runs workers/import-routes').toBeDefined();
    const id = consumerFunctionOf(worker?.id ?? '');
    const actions = allowedActions(id);
    expect(actions).toContain('s3:GetObject');
    expect(resourcesAllowed(id, 's3:PutObject')).toEqual([bucketObjects(REVISION_IMAGES_PREFIX)]);
    for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query'])
      expect(actions).toContain(action);
    expect(environmentOf(id)).toMatchObject({
      [RESOURCE_ENV.table]: expect.anything(),
      [RESOURCE_ENV.bucket]: expect.anything(),
      [RESOURCE_ENV.apiUrl]: expect.anything(),
    });
  });

  it('the deletion worker deletes table items, queues the rest of a route to itself, and its queue keeps a message invisible six times its timeout', () => {
    const worker = consumers.find((c) => sliceOf(c.module).name === 'workers/delete-routes');
    expect(worker, 'no consumer runs workers/delete-routes').toBeDefined();
    const id = consumerFunctionOf(worker?.id ?? '');
    for (const action of ['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:Query'])
      expect(allowedActions(id)).toContain(action);
    expect(allowedActions(id).filter((action) => action.startsWith('s3:'))).toEqual([]);
    expect(resourcesAllowed(id, 'sqs:SendMessage')).toEqual([queueArn(channels.deletions)]);
    const timeout = id.view.props(id.id).Timeout as number;
    expect(channels.deletions.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * timeout);
  });
});
