/**
 * SQS message rules as AWS applies them, and the translation that lets fauxqs carry every message AWS
 * accepts.
 *
 * AWS allows #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF in a message body
 * (SendMessage, MessageBody). fauxqs 1.9 refuses everything above U+FFFF (INVALID_MESSAGE_BODY_CHAR in
 * node_modules/fauxqs/dist/sqs/sqsTypes.js), so bodies with such characters (emoji) travel to fauxqs in an
 * escaped form, starting with U+E000 (a private-use character that is valid everywhere), and are restored
 * on ReceiveMessage with their MD5 digests recomputed. Escaping makes a body longer; where fauxqs would
 * then count the message over its size limit although AWS would not, the message is kept by the proxy and
 * fauxqs carries only a short reference to it (lost if the proxy restarts, like fauxqs' own messages).
 */
import { createHash, randomUUID } from 'node:crypto';

export interface MessageAttributeValue {
  DataType: string;
  StringValue?: string;
  BinaryValue?: string;
  [other: string]: unknown;
}

export type MessageAttributes = Record<string, MessageAttributeValue>;

/** The valid characters, as a test for any invalid one (lone surrogates, U+FFFE, U+FFFF, controls). */
const INVALID_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const ASTRAL = /[\u{10000}-\u{10FFFF}]/u;

export const INVALID_CONTENTS_MESSAGE =
  'Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF';

export function hasInvalidCharacters(body: string): boolean {
  return INVALID_CHARACTER.test(body);
}

/** A message's size as SQS counts it against MaximumMessageSize: body plus each attribute's name, type and value. */
export function messageSize(body: string, attributes: MessageAttributes = {}): number {
  let size = Buffer.byteLength(body, 'utf8');
  for (const [name, attribute] of Object.entries(attributes)) {
    size += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(attribute.DataType, 'utf8');
    if (attribute.StringValue !== undefined) size += Buffer.byteLength(attribute.StringValue, 'utf8');
    if (attribute.BinaryValue !== undefined) size += Buffer.from(attribute.BinaryValue, 'base64').length;
  }
  return size;
}

/** The size fauxqs counts (it counts binary values by their base64 text). */
function emulatorSize(body: string, attributes: MessageAttributes = {}): number {
  let size = Buffer.byteLength(body, 'utf8');
  for (const [name, attribute] of Object.entries(attributes)) {
    size += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(attribute.DataType, 'utf8');
    size +=
      Buffer.byteLength(attribute.StringValue ?? '', 'utf8') +
      Buffer.byteLength(attribute.BinaryValue ?? '', 'utf8');
  }
  return size;
}

export const md5Hex = (data: string | Buffer) => createHash('md5').update(data).digest('hex');

/** MD5OfMessageAttributes as SQS computes it (names sorted; length-prefixed name, type, transport, value). */
export function md5OfAttributes(attributes: MessageAttributes): string | undefined {
  const names = Object.keys(attributes).sort();
  if (names.length === 0) return undefined;
  const parts: Buffer[] = [];
  const lengthPrefixed = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    parts.push(length, bytes);
  };
  for (const name of names) {
    const attribute = attributes[name] as MessageAttributeValue;
    lengthPrefixed(Buffer.from(name, 'utf8'));
    lengthPrefixed(Buffer.from(attribute.DataType, 'utf8'));
    if (attribute.BinaryValue !== undefined && attribute.StringValue === undefined) {
      parts.push(Buffer.from([2]));
      lengthPrefixed(Buffer.from(attribute.BinaryValue, 'base64'));
    } else {
      parts.push(Buffer.from([1]));
      lengthPrefixed(Buffer.from(attribute.StringValue ?? '', 'utf8'));
    }
  }
  return md5Hex(Buffer.concat(parts));
}

/** The attributes ReceiveMessage returns for MessageAttributeNames (`All`, `.*`, `prefix.*`, exact names). */
export function requestedAttributes(
  attributes: MessageAttributes | undefined,
  requested: readonly string[],
): MessageAttributes | undefined {
  if (!attributes) return undefined;
  if (requested.includes('All') || requested.includes('.*')) return attributes;
  const chosen: MessageAttributes = {};
  for (const [name, value] of Object.entries(attributes)) {
    const wanted = requested.some((pattern) =>
      pattern.endsWith('.*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name,
    );
    if (wanted) chosen[name] = value;
  }
  return Object.keys(chosen).length > 0 ? chosen : undefined;
}

const MARK = '\uE000';
const ESCAPED = `${MARK}e`;
const KEPT = `${MARK}k`;
const HIGH_BASE = 0xe400;
const LOW_BASE = 0xe800;

/** In the escaped form, MARK MARK is a literal MARK and MARK hi lo an astral character (10 + 10 bits). */
function escapeBody(body: string): string {
  let escaped = ESCAPED;
  for (const char of body) {
    const codePoint = char.codePointAt(0) as number;
    if (codePoint >= 0x10000) {
      const offset = codePoint - 0x10000;
      escaped += MARK + String.fromCharCode(HIGH_BASE + (offset >> 10), LOW_BASE + (offset & 0x3ff));
    } else escaped += char === MARK ? MARK + MARK : char;
  }
  return escaped;
}

function unescapeBody(escaped: string): string {
  let body = '';
  for (let index = ESCAPED.length; index < escaped.length; index++) {
    const char = escaped[index] as string;
    if (char !== MARK) {
      body += char;
      continue;
    }
    const next = escaped.charCodeAt(index + 1);
    if (next === MARK.charCodeAt(0)) {
      body += MARK;
      index += 1;
    } else {
      const low = escaped.charCodeAt(index + 2);
      body += String.fromCodePoint(0x10000 + ((next - HIGH_BASE) << 10) + (low - LOW_BASE));
      index += 2;
    }
  }
  return body;
}

/** One message as SendMessage / a SendMessageBatch entry gives it. */
export interface OutgoingMessage {
  MessageBody: string;
  MessageAttributes?: MessageAttributes;
}

/** What ReceiveMessage returns for one message (the fields the proxy touches). */
export interface ReceivedMessage {
  Body?: string;
  MD5OfBody?: string;
  MessageAttributes?: MessageAttributes;
  MD5OfMessageAttributes?: string;
  ReceiptHandle?: string;
  [other: string]: unknown;
}

/** fauxqs' limit on the sum of a batch's message sizes. */
export const EMULATOR_BATCH_LIMIT = 1_048_576;

export class MessageTranslator {
  /** Messages too large for fauxqs once escaped, by the reference fauxqs carries instead. */
  private readonly kept = new Map<string, OutgoingMessage>();
  private readonly keptByReceipt = new Map<string, string>();

  /** The form fauxqs can store, within its size limit `emulatorLimit` (the queue's MaximumMessageSize). */
  toEmulator(message: OutgoingMessage, emulatorLimit: number): OutgoingMessage {
    const body = message.MessageBody;
    const needsEscaping = ASTRAL.test(body) || body.startsWith(MARK);
    const candidate = needsEscaping ? { ...message, MessageBody: escapeBody(body) } : message;
    return emulatorSize(candidate.MessageBody, candidate.MessageAttributes) > emulatorLimit
      ? this.keep(message)
      : candidate;
  }

  /** fauxqs also caps a batch at 1 MiB by its own count: keep the largest messages until the batch fits. */
  fitBatch(messages: OutgoingMessage[], originals: OutgoingMessage[]): OutgoingMessage[] {
    const fitted = [...messages];
    const sizes = fitted.map((message) => emulatorSize(message.MessageBody, message.MessageAttributes));
    let total = sizes.reduce((sum, size) => sum + size, 0);
    while (total > EMULATOR_BATCH_LIMIT) {
      const largest = sizes.indexOf(Math.max(...sizes));
      fitted[largest] = this.keep(originals[largest] as OutgoingMessage);
      const size = emulatorSize((fitted[largest] as OutgoingMessage).MessageBody);
      total += size - (sizes[largest] as number);
      sizes[largest] = size;
    }
    return fitted;
  }

  private keep(message: OutgoingMessage): OutgoingMessage {
    const reference = randomUUID();
    this.kept.set(reference, message);
    return { MessageBody: `${KEPT}${reference}` };
  }

  /**
   * Restores a received message as the sender sent it, shows only the requested attributes (as AWS does;
   * fauxqs returns all of them when none are asked for) and makes the MD5 digests match.
   */
  fromEmulator(message: ReceivedMessage, requestedAttributeNames: readonly string[]): ReceivedMessage {
    let { Body: body, MessageAttributes: attributes, MD5OfMessageAttributes: attributesDigest } = message;
    if (body?.startsWith(KEPT)) {
      const reference = body.slice(KEPT.length);
      const original = this.kept.get(reference);
      if (original) {
        if (message.ReceiptHandle) this.keptByReceipt.set(message.ReceiptHandle, reference);
        body = original.MessageBody;
        attributes = original.MessageAttributes;
        attributesDigest = attributes && md5OfAttributes(attributes);
      }
    } else if (body?.startsWith(ESCAPED)) {
      body = unescapeBody(body);
    }
    const restored: ReceivedMessage = { ...message, Body: body };
    if (body !== undefined && body !== message.Body) restored.MD5OfBody = md5Hex(body);
    delete restored.MessageAttributes;
    delete restored.MD5OfMessageAttributes;
    const shown = requestedAttributes(attributes, requestedAttributeNames);
    if (shown) {
      restored.MessageAttributes = shown;
      restored.MD5OfMessageAttributes = attributesDigest;
    }
    return restored;
  }

  /** A deleted message is gone for good: forget the copy the proxy kept of it, if any. */
  forget(receiptHandle: string): void {
    const reference = this.keptByReceipt.get(receiptHandle);
    if (reference === undefined) return;
    this.keptByReceipt.delete(receiptHandle);
    this.kept.delete(reference);
  }
}
