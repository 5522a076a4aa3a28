import { createHash } from 'node:crypto';

/**
 * A service's rule for resource names: what CloudFormation would have to respect when it makes one up. Local
 * names follow the same rules so that a name that works locally is one AWS would accept.
 */
export interface NamingRule {
  minLength: number;
  maxLength: number;
  /** One character the service does not allow (replaced by `-`). */
  invalidCharacter: RegExp;
  lowercase?: boolean;
  /** Must start and end with a letter or digit (S3). */
  alphanumericEnds?: boolean;
}

const rule = (maxLength: number, invalidCharacter: RegExp, extra: Partial<NamingRule> = {}): NamingRule => ({
  minLength: 1,
  maxLength,
  invalidCharacter,
  ...extra,
});

/** The naming rules of the services the local runtime creates resources in, from each service's limits. */
export const NAMING_RULES = {
  /** 3-255 characters: a-z, A-Z, 0-9, `_`, `-`, `.`. */
  table: rule(255, /[^A-Za-z0-9_.-]/, { minLength: 3 }),
  /** Up to 80 characters: alphanumerics, `-`, `_` (a FIFO queue's `.fifo` suffix included). */
  queue: rule(80, /[^A-Za-z0-9_-]/),
  /** 3-63 characters: lowercase letters, digits, `.`, `-`; a letter or digit at each end. */
  bucket: rule(63, /[^a-z0-9.-]/, { minLength: 3, lowercase: true, alphanumericEnds: true }),
  /** Up to 64 characters: letters, digits, `-`, `_`. */
  function: rule(64, /[^A-Za-z0-9_-]/),
  /** Up to 64 characters: alphanumerics and `+=,.@_-`. */
  role: rule(64, /[^A-Za-z0-9+=,.@_-]/),
  /** Up to 128 characters, as role names. */
  managedPolicy: rule(128, /[^A-Za-z0-9+=,.@_-]/),
  /** Up to 512 characters: alphanumerics and `_-./#`. */
  logGroup: rule(512, /[^A-Za-z0-9_\-./#]/),
  /** Up to 256 characters: alphanumerics, `-`, `_`. */
  topic: rule(256, /[^A-Za-z0-9_-]/),
  /** Up to 64 characters: alphanumerics and `.-_`. */
  pipe: rule(64, /[^A-Za-z0-9._-]/),
  /** Up to 255 printable characters; kept to a safe set here. */
  alarm: rule(255, /[^A-Za-z0-9_.-]/),
  /** Up to 128 characters: alphanumerics and `-` (a nested stack's name). */
  stack: rule(128, /[^A-Za-z0-9-]/),
  /** Everything else: a conservative set that every service accepts. */
  generic: rule(64, /[^A-Za-z0-9_-]/),
} as const satisfies Record<string, NamingRule>;

/** A hex digest of `text`, `length` characters long: deterministic, so every run makes the same ids. */
export function shortHash(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/**
 * `<prefix>-<id>` made to fit `rule`: characters the service rejects become `-`, and a name too long is cut
 * and ends with a hash of the whole name, so two long names that share their start stay distinct.
 */
export function physicalName(prefix: string, id: string, rule: NamingRule): string {
  const full = `${prefix}-${id}`;
  let name = rule.lowercase ? full.toLowerCase() : full;
  name = name.replace(new RegExp(rule.invalidCharacter, 'g'), '-');
  if (rule.alphanumericEnds) name = name.replace(/\.{2,}/g, '.').replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  if (name.length > rule.maxLength) {
    const suffix = `-${shortHash(full)}`;
    name = name.slice(0, rule.maxLength - suffix.length).replace(/[^A-Za-z0-9]+$/, '') + suffix;
  }
  if (name.length < rule.minLength) name = `${name}-${shortHash(full)}`.replace(/^-/, '');
  return name;
}

/** An id made of `length` lowercase letters and digits, as API Gateway's ids are. */
export function generatedId(seed: string, length: number): string {
  return shortHash(seed, length);
}

/** A UUID-shaped id (KMS key ids, stack ids), deterministic from `seed`. */
export function generatedUuid(seed: string): string {
  const hex = shortHash(seed, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
