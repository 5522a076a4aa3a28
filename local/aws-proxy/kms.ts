/**
 * KMS through the proxy: GenerateDataKey and Decrypt for the symmetric keys the templates declare, answered
 * by the proxy itself (no emulator behind it) in the AWS JSON 1.1 protocol the SDK's KMS client speaks
 * (`X-Amz-Target: TrentService.<Operation>`).
 *
 * Real cryptography: each runtime has a master key of its own (random, or kept in a file by npm start so a
 * kept table's secrets still open), and each KMS key of the deployment a wrapping key derived from it
 * (HKDF-SHA256 over the key's ARN). A ciphertext blob is the data key encrypted with AES-256-GCM under its
 * key's wrapping key, with the key's id in a header and the encryption context as additional data, so:
 * - only this runtime opens its blobs, and only with the key they were made under;
 * - Decrypt succeeds only with exactly the encryption context of GenerateDataKey (the same pairs, in any
 *   order, case-sensitive; none for none), else InvalidCiphertextException, as KMS answers;
 * - a tampered blob fails the same way.
 *
 * Authorization as IAM does it for keys whose policy delegates to IAM (CDK's default key policy): the caller's
 * role policy must allow the action on the key's ARN (local/iam/actions.ts). Errors as KMS words them:
 * NotFoundException for a key that is not the deployment's, IncorrectKeyException for a Decrypt whose KeyId is
 * not the ciphertext's key, DisabledException, ValidationException for malformed input.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { KmsKeySpec } from '../cloud/model';
import { kmsChecks, UnknownOperationError } from '../iam/actions';
import type { ConditionContext } from '../iam/policy';
import { type ServiceError, sendError } from './errors';
import { authorize, type SignedCall, signedBody } from './principals';

/** Far above any GenerateDataKey or Decrypt request (a ciphertext blob is at most 6144 bytes). */
const MAX_REQUEST_BYTES = 64 * 1024;
const MAX_CIPHERTEXT_BYTES = 6144;
const MAGIC = Buffer.from('LKMS\u0001', 'latin1');
const IV_BYTES = 12;
const TAG_BYTES = 16;
const DATA_KEY_BYTES: Record<string, number> = { AES_256: 32, AES_128: 16 };

export interface KmsOptions {
  /** The deployment's keys, by ARN. */
  keys: ReadonlyMap<string, KmsKeySpec>;
  /** 32 bytes: this runtime's root of every key's wrapping key. */
  masterKey: Buffer;
}

type Input = Record<string, unknown>;

const kmsError = (type: string, message: string, status = 400): ServiceError => ({ status, type, message });

class KmsFailure extends Error {
  constructor(readonly error: ServiceError) {
    super(error.message);
  }
}

const fail = (type: string, message: string): never => {
  throw new KmsFailure(kmsError(type, message));
};

export async function handleKms(call: SignedCall, options: KmsOptions): Promise<void> {
  const { req, res } = call;
  const body = await signedBody('kms', call, MAX_REQUEST_BYTES);
  if (!body) return;
  const target = String(req.headers['x-amz-target'] ?? '');
  const [prefix, operation = ''] = target.split('.');
  let input: Input;
  try {
    input = body.length === 0 ? {} : (JSON.parse(body.toString('utf8')) as Input);
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new Error('not an object');
  } catch {
    sendError(
      res,
      'kms',
      kmsError('SerializationException', 'Start of structure or map found where not expected.'),
    );
    return;
  }
  try {
    if (prefix !== 'TrentService') throw new UnknownOperationError(`KMS ${target}`);
    if (operation === 'GenerateDataKey') return generateDataKey(call, input, options);
    if (operation === 'Decrypt') return decrypt(call, input, options);
    throw new UnknownOperationError(`KMS ${operation}`);
  } catch (error) {
    if (error instanceof KmsFailure) {
      sendError(res, 'kms', error.error);
      return;
    }
    if (error instanceof UnknownOperationError) {
      sendError(res, 'kms', kmsError('UnknownOperationException', error.message));
      return;
    }
    throw error;
  }
}

function generateDataKey(call: SignedCall, input: Input, options: KmsOptions): void {
  const key = resolveKey(call, input.KeyId, options);
  const context = encryptionContext(input.EncryptionContext);
  const { KeySpec: keySpec, NumberOfBytes: numberOfBytes } = input;
  if ((keySpec === undefined) === (numberOfBytes === undefined)) {
    fail('ValidationException', 'Please specify either number of bytes or key spec.');
  }
  if (keySpec !== undefined && (typeof keySpec !== 'string' || !(keySpec in DATA_KEY_BYTES))) {
    fail(
      'ValidationException',
      `1 validation error detected: Value '${String(keySpec)}' at 'keySpec' failed to satisfy constraint: Member must satisfy enum value set: [AES_256, AES_128]`,
    );
  }
  if (
    numberOfBytes !== undefined &&
    (!Number.isInteger(numberOfBytes) || (numberOfBytes as number) < 1 || (numberOfBytes as number) > 1024)
  ) {
    fail(
      'ValidationException',
      `1 validation error detected: Value '${String(numberOfBytes)}' at 'numberOfBytes' failed to satisfy constraint: Member must have value between 1 and 1024`,
    );
  }
  if (!authorize('kms', call, kmsChecks('GenerateDataKey', key.arn), contextKeys(context))) return;
  usable(key);
  const plaintext = randomBytes(
    keySpec === undefined ? (numberOfBytes as number) : (DATA_KEY_BYTES[keySpec as string] as number),
  );
  const blob = seal(key, plaintext, context, options.masterKey);
  sendKmsJson(call.res, {
    CiphertextBlob: blob.toString('base64'),
    Plaintext: plaintext.toString('base64'),
    KeyId: key.arn,
  });
}

function decrypt(call: SignedCall, input: Input, options: KmsOptions): void {
  const blob = base64Blob(input.CiphertextBlob);
  const context = encryptionContext(input.EncryptionContext);
  const algorithm = input.EncryptionAlgorithm;
  if (algorithm !== undefined && algorithm !== 'SYMMETRIC_DEFAULT') {
    fail('InvalidKeyUsageException', `The key does not support ${String(algorithm)}.`);
  }
  const parsed = parseBlob(blob);
  const key = options.keys.get(parsed.keyArn);
  if (!key) fail('NotFoundException', `Key '${parsed.keyArn}' does not exist`);
  const found = key as KmsKeySpec;
  if (input.KeyId !== undefined && resolveKey(call, input.KeyId, options).arn !== found.arn) {
    fail(
      'IncorrectKeyException',
      'The key ID in the request does not identify a CMK that can perform this operation.',
    );
  }
  if (!authorize('kms', call, kmsChecks('Decrypt', found.arn), contextKeys(context))) return;
  usable(found);
  const plaintext = open(found, parsed, context, options.masterKey);
  sendKmsJson(call.res, {
    KeyId: found.arn,
    Plaintext: plaintext.toString('base64'),
    EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
  });
}

/** The deployment's key a KeyId names: its id or ARN (aliases are not served here). */
function resolveKey(call: SignedCall, keyId: unknown, options: KmsOptions): KmsKeySpec {
  if (typeof keyId !== 'string' || keyId === '') {
    return fail(
      'ValidationException',
      "1 validation error detected: Value null at 'keyId' failed to satisfy constraint: Member must not be null",
    );
  }
  const arn = keyId.startsWith('arn:')
    ? keyId
    : keyId.startsWith('alias/')
      ? `arn:aws:kms:${call.scope.region}:${call.scope.accountId}:${keyId}`
      : `arn:aws:kms:${call.scope.region}:${call.scope.accountId}:key/${keyId}`;
  const key = options.keys.get(arn);
  if (!key) {
    return fail(
      'NotFoundException',
      arn.includes(':alias/') ? `Alias ${arn} is not found.` : `Key '${arn}' does not exist`,
    );
  }
  return key;
}

function usable(key: KmsKeySpec): void {
  if (!key.enabled) fail('DisabledException', `${key.arn} is disabled.`);
  if (key.keySpec !== 'SYMMETRIC_DEFAULT' || key.keyUsage !== 'ENCRYPT_DECRYPT') {
    fail(
      'InvalidKeyUsageException',
      `${key.arn} key usage is ${key.keyUsage} which is not valid for this operation.`,
    );
  }
}

/** EncryptionContext: a map of strings to strings, or absent (the same as empty). */
function encryptionContext(value: unknown): [string, string][] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value)) {
    return fail('SerializationException', 'EncryptionContext must be a map of strings.');
  }
  const entries = Object.entries(value as Record<string, unknown>);
  for (const [name, entry] of entries) {
    if (typeof entry !== 'string')
      fail('SerializationException', `EncryptionContext value of '${name}' is not a string.`);
  }
  return (entries as [string, string][]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The condition keys KMS sets from a request's encryption context: `kms:EncryptionContextKeys` (the names;
 * absent without a context) and `kms:EncryptionContext:<name>` for each pair.
 */
function contextKeys(context: [string, string][]): ConditionContext {
  if (context.length === 0) return {};
  return {
    'kms:EncryptionContextKeys': context.map(([name]) => name),
    ...Object.fromEntries(context.map(([name, value]) => [`kms:EncryptionContext:${name}`, value])),
  };
}

function base64Blob(value: unknown): Buffer {
  const blob = typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
  if (blob.length < 1 || blob.length > MAX_CIPHERTEXT_BYTES) {
    fail(
      'ValidationException',
      `1 validation error detected: Value at 'ciphertextBlob' failed to satisfy constraint: Member must have length between 1 and ${MAX_CIPHERTEXT_BYTES}`,
    );
  }
  return blob;
}

/** What the blob is bound to: the key, and the exact encryption context. */
function additionalData(keyArn: string, context: [string, string][]): Buffer {
  return Buffer.from(JSON.stringify([keyArn, context]), 'utf8');
}

function wrappingKey(key: KmsKeySpec, masterKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `local-kms:${key.arn}`, 32));
}

/** MAGIC | key ARN length (2 bytes) | key ARN | IV | tag | encrypted data key. */
function seal(key: KmsKeySpec, plaintext: Buffer, context: [string, string][], masterKey: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', wrappingKey(key, masterKey), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(key.arn, context));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const arn = Buffer.from(key.arn, 'utf8');
  const length = Buffer.alloc(2);
  length.writeUInt16BE(arn.length);
  return Buffer.concat([MAGIC, length, arn, iv, cipher.getAuthTag(), ciphertext]);
}

interface ParsedBlob {
  keyArn: string;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

function parseBlob(blob: Buffer): ParsedBlob {
  const invalid = () => fail('InvalidCiphertextException', 'The ciphertext is invalid.');
  if (blob.length < MAGIC.length + 2 || !blob.subarray(0, MAGIC.length).equals(MAGIC)) return invalid();
  const arnLength = blob.readUInt16BE(MAGIC.length);
  const arnStart = MAGIC.length + 2;
  const ivStart = arnStart + arnLength;
  const tagStart = ivStart + IV_BYTES;
  const dataStart = tagStart + TAG_BYTES;
  if (blob.length <= dataStart) return invalid();
  return {
    keyArn: blob.subarray(arnStart, ivStart).toString('utf8'),
    iv: blob.subarray(ivStart, tagStart),
    tag: blob.subarray(tagStart, dataStart),
    ciphertext: blob.subarray(dataStart),
  };
}

function open(key: KmsKeySpec, blob: ParsedBlob, context: [string, string][], masterKey: Buffer): Buffer {
  try {
    const decipher = createDecipheriv('aes-256-gcm', wrappingKey(key, masterKey), blob.iv, {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(additionalData(key.arn, context));
    decipher.setAuthTag(blob.tag);
    return Buffer.concat([decipher.update(blob.ciphertext), decipher.final()]);
  } catch {
    // KMS says no more than this: a wrong context, another key's or a tampered blob look alike.
    return fail('InvalidCiphertextException', 'The ciphertext is invalid.');
  }
}

function sendKmsJson(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
  });
  res.end(text);
}

/** A new master key for a runtime. */
export const newKmsMasterKey = (): Buffer => randomBytes(32);
