import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fontkit from '@pdf-lib/fontkit';
import { PageSizes, PDFDocument, type PDFFont, type PDFImage, type PDFPage, rgb } from 'pdf-lib';
import type { Applied } from '../models/delivery-requirements';
import { DELIVERY_NOTE_FONT_FILES } from '../shared/resources';
import { DATE_TIME_FIELDS, zonedFormatter } from '../shared/time';
import type { DeliveryNoteContent } from './delivery-note';

/**
 * Renders delivery notes with pdf-lib. This module is loaded with `import()` only when a note has to be
 * rendered, so pdf-lib and fontkit sit in a chunk of their own that no cold start reads.
 *
 * The text is set in DejaVu Sans, embedded as a subset of the glyphs the note uses: the PDF standard fonts
 * know Latin-1 only, while a signer, a customer or an item may be named in Polish, Greek or Cyrillic. The
 * font file ships beside the bundle (the endpoint's `bundledFiles`) and is read once per cold start.
 */

let fontBytes: Promise<Buffer> | undefined;

/**
 * The font file (DELIVERY_NOTE_FONT_FILES), found from this module: locally in the repository's node_modules,
 * on Lambda in the one beside the bundle.
 */
function loadFont(): Promise<Buffer> {
  fontBytes ??= (async () => {
    const [packageJson, , fontFile] = DELIVERY_NOTE_FONT_FILES;
    const nodeModules = dirname(dirname(createRequire(import.meta.url).resolve(packageJson)));
    return readFile(join(nodeModules, fontFile));
  })();
  fontBytes.catch(() => {
    fontBytes = undefined;
  });
  return fontBytes;
}

type Fontkit = Parameters<PDFDocument['registerFontkit']>[0];

let parsedFont: ReturnType<Fontkit['create']> | undefined;

/**
 * fontkit, parsing the font once per cold start: pdf-lib parses the font's bytes for each document, and the
 * glyphs fontkit has laid out stay cached in the parsed font. Each document still makes its own subset.
 */
const fontkitOnce: Fontkit = {
  create: (bytes, postscriptName) => {
    parsedFont ??= fontkit.create(bytes, postscriptName);
    return parsedFont;
  },
};

const [PAGE_WIDTH, PAGE_HEIGHT] = PageSizes.A4;
const MARGIN = 48;
const TEXT_SIZE = 9.5;
const LINE = 14;
const GREY = rgb(0.35, 0.35, 0.35);

/** The item table's columns: where each starts, and how wide its text may run. */
const ITEM_COLUMNS = [
  { title: 'Item', x: 0, width: 120 },
  { title: 'SKU', x: 122, width: 70 },
  { title: 'Name', x: 194, width: 130 },
  { title: 'Quantity', x: 326, width: 70 },
  { title: 'Status', x: 398, width: 101 },
] as const;

/**
 * Where an item's status time goes, on the line under its row: from the quantity column to the margin, room for
 * the longest time the notes write (`2026-11-23 19:35:00 GMT+10:30`, about 161 points), which the status
 * column's 101 would cut.
 */
const STATUS_TIME_COLUMNS = [{ x: 326, width: PAGE_WIDTH - 2 * MARGIN - 326 }] as const;

/** Writes lines down the pages, starting a new page when one is full. */
class NoteWriter {
  private page: PDFPage;
  private y: number;

  constructor(
    private readonly doc: PDFDocument,
    private readonly font: PDFFont,
  ) {
    this.page = this.newPage();
    this.y = PAGE_HEIGHT - MARGIN;
  }

  private newPage(): PDFPage {
    const page = this.doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    this.y = PAGE_HEIGHT - MARGIN;
    return page;
  }

  /** Room for `height` more points on this page, or a new page. */
  private room(height: number): void {
    if (this.y - height < MARGIN) this.page = this.newPage();
  }

  /** `text` cut with an ellipsis to `width` points (one line: line breaks and runs of spaces become one space). */
  fit(text: string, width: number, size = TEXT_SIZE): string {
    const flat = text.replace(/\s+/g, ' ').trim();
    const fits = (candidate: string) => this.font.widthOfTextAtSize(candidate, size) <= width;
    if (fits(flat)) return flat;
    // The longest start of the text that fits with the ellipsis, by bisection: each measure lays text out.
    const chars = [...flat];
    let [fitting, tooLong] = [0, chars.length];
    while (tooLong - fitting > 1) {
      const middle = Math.floor((fitting + tooLong) / 2);
      if (fits(`${chars.slice(0, middle).join('')}…`)) fitting = middle;
      else tooLong = middle;
    }
    return `${chars.slice(0, fitting).join('')}…`;
  }

  heading(text: string, size = 12): void {
    this.room(size + 10);
    this.y -= size + 6;
    this.page.drawText(this.fit(text, PAGE_WIDTH - 2 * MARGIN, size), {
      x: MARGIN,
      y: this.y,
      size,
      font: this.font,
    });
    this.y -= 4;
  }

  /** A label and its value on one line. */
  field(label: string, value: string): void {
    this.room(LINE);
    this.y -= LINE;
    this.page.drawText(label, { x: MARGIN, y: this.y, size: TEXT_SIZE, font: this.font, color: GREY });
    this.page.drawText(this.fit(value, PAGE_WIDTH - 2 * MARGIN - 110), {
      x: MARGIN + 110,
      y: this.y,
      size: TEXT_SIZE,
      font: this.font,
    });
  }

  /** One row of cells at the columns' offsets. */
  row(
    cells: readonly string[],
    columns: readonly { x: number; width: number }[],
    color = rgb(0, 0, 0),
  ): void {
    this.room(LINE);
    this.y -= LINE;
    cells.forEach((cell, index) => {
      const column = columns[index];
      if (!column) return;
      this.page.drawText(this.fit(cell, column.width), {
        x: MARGIN + column.x,
        y: this.y,
        size: TEXT_SIZE,
        font: this.font,
        color,
      });
    });
  }

  line(text: string, indent = 0): void {
    this.room(LINE);
    this.y -= LINE;
    this.page.drawText(this.fit(text, PAGE_WIDTH - 2 * MARGIN - indent), {
      x: MARGIN + indent,
      y: this.y,
      size: TEXT_SIZE,
      font: this.font,
    });
  }

  /** The image scaled into `maxWidth` x `maxHeight`, never enlarged. */
  image(image: PDFImage, maxWidth: number, maxHeight: number): void {
    const scale = Math.min(1, maxWidth / image.width, maxHeight / image.height);
    const width = image.width * scale;
    const height = image.height * scale;
    this.room(height + 6);
    this.y -= height + 6;
    this.page.drawImage(image, { x: MARGIN, y: this.y, width, height });
  }

  gap(points = 6): void {
    this.y -= points;
  }
}

/** The signature's image in the document, or why it is not there. */
async function embedSignature(
  doc: PDFDocument,
  signature: NonNullable<DeliveryNoteContent['signature']>,
  bytes: Uint8Array | undefined,
): Promise<PDFImage | string> {
  if (!bytes) return 'its file could not be read';
  try {
    if (signature.contentType === 'image/png') return await doc.embedPng(bytes);
    if (signature.contentType === 'image/jpeg') return await doc.embedJpg(bytes);
    return `a PDF cannot show ${signature.contentType}; download the proof`;
  } catch {
    // The upload check compares the first bytes only: the rest may not be a readable image.
    return 'its file is not a readable image';
  }
}

/** The rules an attempt was held to, in words; empty when it was held to none. */
function rulesText(rules: Applied): string {
  return [
    rules.photos > 0 && `${rules.photos} ${rules.photos === 1 ? 'photo' : 'photos'}`,
    rules.signature && 'signature',
    rules.pin && 'PIN',
    rules.minimum_age !== null && `ID check (at least ${rules.minimum_age})`,
    rules.scan_items && 'every item scanned',
  ]
    .filter((rule): rule is string => typeof rule === 'string')
    .join(', ');
}

const dateTime = zonedFormatter('en-CA', { ...DATE_TIME_FIELDS, timeZoneName: 'short' });

/**
 * The delivery note of an invoice as a PDF: the DC, route, waypoint and invoice, every item with its quantity,
 * unit and status, the attempts with their times and how each met the stop's delivery rules (the rules, the PIN
 * verified, the age checked, the scans), the signer and the signature's image (PNG or JPEG).
 * `signatureBytes` are the signature proof's bytes, when the note has a signature and they could be read.
 */
export async function renderDeliveryNote(
  note: DeliveryNoteContent,
  signatureBytes?: Uint8Array,
): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkitOnce);
  const font = await doc.embedFont(await loadFont(), { subset: true });
  doc.setTitle(`Delivery note: invoice ${note.invoice.id}`);
  doc.setSubject(`Route ${note.route.id}, waypoint ${note.waypoint.id}`);
  doc.setCreator('Delivery Route Service');
  doc.setProducer('Delivery Route Service (pdf-lib)');
  // The note shows what was recorded up to its last event, not when it was drawn.
  doc.setCreationDate(new Date(note.asOf));
  doc.setModificationDate(new Date(note.asOf));
  const time = dateTime(note.dc.timeZone);
  const when = (timestamp: number) => time.format(new Date(timestamp));
  const write = new NoteWriter(doc, font);

  write.heading(`Delivery note — invoice ${note.invoice.id}`, 15);
  write.field('Distribution center', `${note.dc.name} (${note.dc.id})`);
  write.field('Route', `${note.route.name} (${note.route.id})`);
  write.field('Waypoint', [note.waypoint.name, note.waypoint.id].filter(Boolean).join(' — '));
  if (note.waypoint.address) write.field('Address', note.waypoint.address);
  if (note.waypoint.customerId) write.field('Customer', note.waypoint.customerId);
  write.field('Waypoint status', note.waypoint.status);
  if (note.invoice.paymentMethod) write.field('Payment method', note.invoice.paymentMethod);
  for (const attribute of note.invoice.nameAttributes) write.field(attribute.key, attribute.value);

  write.heading('Items');
  write.row(
    ITEM_COLUMNS.map((column) => column.title),
    ITEM_COLUMNS,
    GREY,
  );
  for (const item of note.invoice.items) {
    const quantity = [String(item.quantity), item.unit].filter(Boolean).join(' ');
    const status = item.status ? item.status.status : 'not attempted';
    write.row([item.id, item.sku ?? '', item.name ?? '', quantity, status], ITEM_COLUMNS);
    if (item.status) write.row([when(item.status.timestamp)], STATUS_TIME_COLUMNS, GREY);
    if (item.status?.reason) {
      write.line(`${item.status.reason.code}: ${item.status.reason.message}`, 16);
    }
  }

  write.heading('Attempts');
  if (note.attempts.length === 0) write.line('none');
  for (const attempt of note.attempts) {
    const place = attempt.location
      ? ` at ${attempt.location.latitude.toFixed(5)}, ${attempt.location.longitude.toFixed(5)}`
      : '';
    write.line(`${when(attempt.timestamp)}  ${attempt.status}${place}  (${attempt.id})`);
    if (attempt.reason) write.line(`${attempt.reason.code}: ${attempt.reason.message}`, 16);
    if (attempt.signerName) write.line(`Signed by ${attempt.signerName}`, 16);
    const rules = attempt.rules && rulesText(attempt.rules);
    if (rules) write.line(`Delivery rules: ${rules}`, 16);
    if (attempt.pinVerified) write.line("PIN verified: the customer's code was given and matched", 16);
    if (attempt.ageCheck) {
      const age = attempt.rules?.minimum_age;
      write.line(
        attempt.ageCheck.result === 'OLD_ENOUGH'
          ? `Age checked: ID seen, recipient at least ${age ?? 'the minimum age'}`
          : `Age checked: ID seen, recipient under ${age ?? 'the minimum age'}`,
        16,
      );
    }
    if (attempt.scans) {
      write.line(`Scans: ${attempt.scans.matched} matched, ${attempt.scans.mismatched} not on the stop`, 16);
    }
  }

  write.heading('Signature');
  if (note.signer) write.field('Signed by', `${note.signer.name}, ${when(note.signer.timestamp)}`);
  else write.line('No signer was recorded.');
  if (note.signature) {
    const image = await embedSignature(doc, note.signature, signatureBytes);
    if (typeof image === 'string') write.line(`Signature ${note.signature.proofId}: ${image}.`);
    else write.image(image, 220, 110);
    write.field('Signature SHA-256', note.signature.sha256);
  }
  write.gap(10);
  write.line(`Recorded up to ${when(note.asOf)}.`);
  return doc.save();
}
