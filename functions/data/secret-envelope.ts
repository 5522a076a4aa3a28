import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { config, perConfig } from '../shared/config';

/**
 * Envelope encryption of short secrets (webhook signing secrets, stop PINs) with the stateful stack's KMS key: KMS
 * GenerateDataKey gives a fresh 256-bit data key, in plain text and encrypted under the key; the secret is
 * encrypted here with AES-256-GCM under the plain data key, which is then forgotten. What is stored is the
 * ciphertext, IV, tag and the encrypted data key. Opening one asks KMS to Decrypt the data key, then AES-GCM.
 *
 * Every call names an encryption context (the secret's owner: `{account_id, webhook_id}` for a webhook's,
 * `{account_id, route_id}` for a stop PIN): KMS binds the
 * data key to it and refuses to decrypt it under any other, and the same context is the GCM additional data,
 * so a sealed secret copied to another item does not open there.
 */

/** A secret as stored: a DynamoDB map of binary fields (and the key's ARN, for operators). */
export interface SealedSecret {
  /** Format version. */
  v: 1;
  /** The KMS key the data key is encrypted under (its ARN, as GenerateDataKey answers it). */
  key_id: string;
  /** The data key, encrypted by KMS (its CiphertextBlob). */
  data_key: Uint8Array;
  /** AES-256-GCM: 12-byte IV, 16-byte tag. */
  iv: Uint8Array;
  tag: Uint8Array;
  ciphertext: Uint8Array;
}

export type EncryptionContext = Readonly<Record<string, string>>;

/** A sealed secret that does not open: tampered, moved to another owner, or under another key. */
export class UnreadableSecretError extends Error {
  override name = 'UnreadableSecretError';
}

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const keyArn = () => config().webhookSecretsKeyArn;

// Pure: a bundle that never opens a secret leaves the KMS client out (esbuild drops an unused pure call).
const theKms = /* @__PURE__ */ perConfig(() =>
  import('./kms-client').then((sdk) => ({ sdk, client: sdk.createKmsClient() })),
);

/** The context as GCM's additional data: its pairs sorted by key, so the order of the object does not matter. */
const additionalData = (context: EncryptionContext) =>
  Buffer.from(
    JSON.stringify(Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    'utf8',
  );

/** True for a value of the stored form (a plain string is a secret stored before encryption). */
export function isSealedSecret(value: unknown): value is SealedSecret {
  if (typeof value !== 'object' || value === null) return false;
  const sealed = value as Partial<SealedSecret>;
  return (
    sealed.v === 1 &&
    typeof sealed.key_id === 'string' &&
    [sealed.data_key, sealed.iv, sealed.tag, sealed.ciphertext].every((field) => field instanceof Uint8Array)
  );
}

/**
 * Seals each of `secrets` under one new data key (one GenerateDataKey call), each with its own IV. The plain
 * data key is zeroed once they are sealed.
 */
export async function sealSecrets(
  secrets: readonly string[],
  context: EncryptionContext,
): Promise<SealedSecret[]> {
  const { sdk, client } = await theKms();
  const { Plaintext, CiphertextBlob, KeyId } = await client.send(
    new sdk.GenerateDataKeyCommand({
      KeyId: keyArn(),
      KeySpec: 'AES_256',
      EncryptionContext: { ...context },
    }),
  );
  if (!Plaintext || !CiphertextBlob || !KeyId) throw new Error('KMS GenerateDataKey answered no data key');
  const dataKey = Buffer.from(Plaintext);
  try {
    const aad = additionalData(context);
    return secrets.map((secret) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, dataKey, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad);
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return { v: 1, key_id: KeyId, data_key: CiphertextBlob, iv, tag: cipher.getAuthTag(), ciphertext };
    });
  } finally {
    dataKey.fill(0);
    Plaintext.fill(0);
  }
}

// ---- Data keys opened recently ----

/**
 * How long a data key KMS decrypted is kept in this process (a Lambda execution environment): a webhook's
 * deliveries within it cost one Decrypt, not one each (KMS charges $0.03 per 10,000 requests, and a busy
 * webhook gets hundreds of deliveries an hour). Short, so a key disabled or a grant removed takes effect
 * within minutes here too.
 */
export const DATA_KEY_CACHE_MS = 5 * 60_000;
/** Data keys kept at most; the oldest goes first. */
const DATA_KEY_CACHE_ENTRIES = 1000;

/**
 * Keyed by the encrypted data key AND the context: a data key opened for one owner is never reused for a
 * sealed secret that claims another. The entry is the pending Decrypt, so concurrent deliveries share it.
 */
const dataKeys = new Map<string, { key: Promise<Buffer>; expiresAt: number }>();

function openDataKey(sealed: SealedSecret, context: EncryptionContext): Promise<Buffer> {
  const cacheKey = `${Buffer.from(sealed.data_key).toString('base64')}|${additionalData(context).toString('base64')}`;
  const now = Date.now();
  const cached = dataKeys.get(cacheKey);
  if (cached && cached.expiresAt > now) return cached.key;
  if (cached) dataKeys.delete(cacheKey);
  const key = decryptDataKey(sealed, context);
  const entry = { key, expiresAt: now + DATA_KEY_CACHE_MS };
  dataKeys.set(cacheKey, entry);
  // A failure is not kept: the next delivery asks KMS again.
  key.catch(() => {
    if (dataKeys.get(cacheKey) === entry) dataKeys.delete(cacheKey);
  });
  while (dataKeys.size > DATA_KEY_CACHE_ENTRIES) dataKeys.delete(dataKeys.keys().next().value as string);
  return key;
}

async function decryptDataKey(sealed: SealedSecret, context: EncryptionContext): Promise<Buffer> {
  const { sdk, client } = await theKms();
  try {
    const { Plaintext } = await client.send(
      new sdk.DecryptCommand({
        // The configured key only: a data key encrypted under any other key is refused by KMS.
        KeyId: keyArn(),
        CiphertextBlob: sealed.data_key,
        EncryptionContext: { ...context },
      }),
    );
    if (!Plaintext) throw new Error('KMS Decrypt answered no plaintext');
    return Buffer.from(Plaintext);
  } catch (error) {
    // The data key is not one of this key's for this context: a lasting condition, not a passing failure.
    if (error instanceof Error && /^(InvalidCiphertextException|IncorrectKeyException)$/.test(error.name)) {
      throw new UnreadableSecretError(`the data key does not decrypt for this owner (${error.name})`);
    }
    throw error;
  }
}

/**
 * The secret, or UnreadableSecretError when it does not open under `context` (moved, tampered). Other errors
 * (KMS unreachable, throttled, access denied) pass through: retrying later may succeed.
 */
export async function openSecret(sealed: SealedSecret, context: EncryptionContext): Promise<string> {
  if (sealed.iv.length !== IV_BYTES || sealed.tag.length !== TAG_BYTES) {
    throw new UnreadableSecretError('the sealed secret is malformed');
  }
  const dataKey = await openDataKey(sealed, context);
  try {
    const decipher = createDecipheriv(ALGORITHM, dataKey, sealed.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(additionalData(context));
    decipher.setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new UnreadableSecretError('the sealed secret does not authenticate for this owner');
  }
}
