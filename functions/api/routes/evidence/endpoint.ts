import { EpochMillis, Id } from '../../../models/common';
import { PROOF_LIMITS } from '../../../shared/limits';
import { DELIVERY_NOTE_FONT_FILES, DELIVERY_NOTES_PREFIX, PROOFS_PREFIX } from '../../../shared/resources';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { AccountingRecord } from '../accounting-schemas';
import { InvoiceStatus } from '../invoice-schemas';
import { Proof } from '../proof-schemas';
import { Route, RouteParams, routesEndpoint } from '../schemas';
import { Attempt, Waypoint } from '../waypoint-schemas';

const LINK_MINUTES = PROOF_LIMITS.downloadLinkSeconds / 60;
// Apart: esbuild keeps a call whose argument interpolates, and the answer's schemas with it.
const PROOFS_DESCRIPTION = `the waypoint’s AVAILABLE proofs of delivery, each with its sha256 and a download link that works ${LINK_MINUTES} minutes; pending and rejected ones are left out`;
const NOTE_LINK_DESCRIPTION = `presigned GET link of the PDF, for ${LINK_MINUTES} minutes`;

export const InvoiceEvidence = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    route: Route,
    waypoint: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.pick(Waypoint, {
        id: true,
        sequence: true,
        customer_id: true,
        name: true,
        address: true,
        location: true,
        status: true,
      }),
      { id: 'EvidenceWaypoint', description: 'the waypoint that lists the invoice' },
    ),
    invoice: InvoiceStatus,
    attempts: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.array(Attempt), {
      description: 'the waypoint’s attempts, oldest first',
    }),
    cash_records: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.array(AccountingRecord), {
      description:
        'the route’s cash accounting records, oldest first (a record names its route and driver, not an invoice)',
    }),
    proofs: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.array(Proof), {
      description: PROOFS_DESCRIPTION,
    }),
    signer: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.nullable(
        /* @__PURE__ */ z.object({
          name: /* @__PURE__ */ z.string(),
          attempt_id: /* @__PURE__ */ z.string(),
          timestamp: EpochMillis,
        }),
      ),
      {
        description:
          'who signed for the delivery, from the latest attempt naming a signer; null when none did',
      },
    ),
    delivery_note: /* @__PURE__ */ z.withMeta(
      /* @__PURE__ */ z.nullable(
        /* @__PURE__ */ z.object({
          download_link: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
            description: NOTE_LINK_DESCRIPTION,
          }),
          expiration_timestamp: /* @__PURE__ */ z.withMeta(EpochMillis, {
            description: 'when download_link stops working',
          }),
          sha256: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
            description: 'hex SHA-256 of the PDF',
          }),
          signature_proof_id: /* @__PURE__ */ z.withMeta(
            /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
            {
              description:
                'the signature proof whose image the note shows: the latest AVAILABLE signature the signer’s attempt names, else the waypoint’s latest AVAILABLE one; null when there is none',
            },
          ),
        }),
      ),
      {
        description:
          'the delivery note (PDF): DC, route, waypoint, invoice, every item with its quantity, unit and status, the attempts and their times, the signer and the signature’s image (PNG or JPEG). Drawn once for each state of the evidence and kept as long as the proofs. Null once the evidence is past its retention (the proof retention, counted from the route’s import, or a proof an attempt names is gone) and no note drawn before is kept: none is drawn again from what is left',
      },
    ),
  }),
  { id: 'InvoiceEvidence', description: 'everything recorded about the delivery of one invoice' },
);

export const getInvoiceEvidence = /* @__PURE__ */ routesEndpoint(
  'GET /dcs/{dc_id}/routes/{route_id}/invoices/{invoice_id}/evidence',
  {
    operationId: 'getInvoiceEvidence',
    module: import.meta.url,
    summary: 'The evidence of an invoice’s delivery, with a PDF delivery note and short-lived download links',
    description: `The invoice with each item’s status and reason, its waypoint, the waypoint’s attempts (times, locations), the route’s cash records, the waypoint’s AVAILABLE proofs and the signer, and a PDF delivery note. Links work for ${LINK_MINUTES} minutes: read the evidence again for fresh ones. The note is drawn on the first read after the evidence changed (a new attempt or proof) and is then kept, like the proofs, for the deployment’s proof retention (400 days unless configured otherwise), even after the route is deleted. Proofs past their retention are gone from the answer, as from the bucket; once the evidence is past its retention no note is drawn again (\`delivery_note\` is null when none drawn before is kept).`,
    // Reads the proofs (the signature's image) and writes the notes among them; signs links to both.
    access: {
      table: 'read',
      bucket: 'read',
      bucketKeyPrefixes: [PROOFS_PREFIX],
      bucketWriteKeyPrefix: DELIVERY_NOTES_PREFIX,
      signLinks: { access: 'read', keyPrefix: PROOFS_PREFIX },
    },
    // The font is read at run time, not bundled into the handler's code.
    bundledFiles: DELIVERY_NOTE_FONT_FILES,
    // Drawing a note takes a few hundred milliseconds of CPU: below the account's rate on other reads.
    throttling: { rateLimit: 10, burstLimit: 20 },
    request: { params: /* @__PURE__ */ z.extend(RouteParams, { invoice_id: Id }) },
    responses:
      import.meta.responseSchemas !== false &&
      ok('the invoice’s evidence', z.object({ evidence: InvoiceEvidence })),
    errorCodes: [3003, 1003],
  },
);
