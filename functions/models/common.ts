import { PAGE_BYTE_BUDGET } from '../shared/limits';
import * as z from '../shared/zod';

/*
 * Every function imports this module, and each uses a few of its schemas: the calls that build them are marked
 * pure (`@__PURE__`; the helpers `@__NO_SIDE_EFFECTS__`) so that a bundle leaves out, and a cold start does not
 * build, the ones it never uses. esbuild does not carry zod's own annotations across modules
 * (evanw/esbuild#4369), so each call here says it. test/cdk/bundling.test.ts holds this module to it.
 */

// ---------------------------------------------------------------------------------------------------
// Text: the building blocks of every string a client sends (fields, path and query parameters)
// ---------------------------------------------------------------------------------------------------

/**
 * Characters no text accepts. Any field can end up in an event, which reaches webhooks through SQS, and SQS
 * carries only #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF: one lone surrogate (or
 * U+FFFE/U+FFFF) would make its event unsendable and hold up the queue. The other noncharacters (U+FDD0..
 * U+FDEF and the last two code points of every plane) are not for interchange (Unicode §23.7), and control
 * characters (C0, DEL, C1) print nothing: both refused as well. Single-line text also refuses the line and
 * paragraph separators U+2028/U+2029; free text keeps tabs and line breaks (\t, \n, \r, U+2028, U+2029).
 * Everything else passes and is stored and sent as it came: emoji, every script, private-use characters.
 */
const FORBIDDEN_SINGLE_LINE = /[\p{Cc}\p{Cs}\p{Noncharacter_Code_Point}\u2028\u2029]/u;
const FORBIDDEN_FREE_TEXT = /(?![\t\n\r])[\p{Cc}\p{Cs}\p{Noncharacter_Code_Point}]/u;

function kindOf(char: string): string {
  if (/\p{Cs}/u.test(char)) return 'a lone surrogate';
  if (/\p{Noncharacter_Code_Point}/u.test(char)) return 'a Unicode noncharacter';
  if (/[\u2028\u2029]/.test(char)) return 'a line separator';
  return 'a control character';
}

/** `U+FFFF (a Unicode noncharacter) at character 3` for the first forbidden character, or undefined. */
function forbiddenCharacter(value: string, multiLine: boolean): string | undefined {
  const match = (multiLine ? FORBIDDEN_FREE_TEXT : FORBIDDEN_SINGLE_LINE).exec(value);
  if (!match) return undefined;
  const char = match[0];
  const codePoint = (char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
  const position = Array.from(value.slice(0, match.index)).length + 1;
  return `U+${codePoint} (${kindOf(char)}) at character ${position}`;
}

/** Characters as people (and JSON Schema's maxLength) count them: code points, so an emoji is one. */
export function characterCount(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

interface TextRules {
  /** Characters (code points), inclusive. */
  min?: number;
  max: number;
  /** Free text: tabs and line breaks allowed. */
  multiLine?: boolean;
  /** Refused when only whitespace. */
  notBlank?: boolean;
  description?: string;
}

/**
 * A string of `min`..`max` characters (code points) without the characters no text accepts (see above). The
 * first problem found is reported, naming the character and where it is; the value itself is never echoed.
 */
/* @__NO_SIDE_EFFECTS__ */
export function SafeText({ min = 0, max, multiLine = false, notBlank = false, description }: TextRules) {
  return /* @__PURE__ */ z.withMeta(
    /* @__PURE__ */ z.string().check(
      /* @__PURE__ */ z.superRefine((value, context) => {
        const problem = textProblem(value, { min, max, multiLine, notBlank });
        if (problem) context.addIssue({ code: 'custom', message: problem });
      }),
    ),
    {
      ...(min > 0 ? { minLength: min } : {}),
      maxLength: max,
      ...(description ? { description } : {}),
    },
  );
}

function textProblem(value: string, rules: Required<Omit<TextRules, 'description'>>): string | undefined {
  // Counting code points is only needed when the UTF-16 length could pass the maximum.
  const length = value.length > rules.max || value.length < rules.min * 2 ? characterCount(value) : undefined;
  if (length !== undefined && (length > rules.max || length < rules.min)) {
    const range = rules.min === rules.max ? `${rules.max}` : `${rules.min}..${rules.max}`;
    return `must be ${range} characters long; this one has ${length}`;
  }
  const forbidden = forbiddenCharacter(value, rules.multiLine);
  if (forbidden) return `must not contain ${forbidden}`;
  if (rules.notBlank && value.trim() === '') return 'must not be blank';
  return undefined;
}

/** Single-line human text (a name, a code, a container label): any characters but control characters. */
export const Label = /* @__NO_SIDE_EFFECTS__ */ (
  max: number,
  rules: Omit<TextRules, 'max' | 'multiLine'> = {},
) => /* @__PURE__ */ SafeText({ ...rules, max });

/** Free text (addresses, notes, failure messages): tabs and line breaks (\t \n \r U+2028 U+2029) allowed. */
export const FreeText = /* @__NO_SIDE_EFFECTS__ */ (
  max: number,
  rules: Omit<TextRules, 'max' | 'multiLine'> = {},
) => /* @__PURE__ */ SafeText({ ...rules, max, multiLine: true });

/** Most characters of an id. */
export const MAX_ID_CHARS = 128;

/**
 * Most UTF-8 bytes of an id. Ids become parts of DynamoDB keys, and the longest key holds two of them: a
 * driver token's sort key `<account>/<dc id>/<driver id>` (20 + 2 + 2 x 384 = 790 bytes of the 1,024 a sort
 * key may have; partition keys may have 2,048). 384 bytes is any 128 characters of the Basic Multilingual Plane
 * (every script's letters, CJK included); ids of emoji and other 4-byte characters have 96 of them at most.
 */
export const MAX_ID_BYTES = 384;

const ID_RULES =
  `1..${MAX_ID_CHARS} characters and at most ${MAX_ID_BYTES} bytes in UTF-8; any characters (spaces and ` +
  'emoji included) but "/" and control characters, with no space at either end, and not "." or ".."';

/** Computed apart: an interpolation in the schema's own expression would keep it in every bundle. */
const ID_DESCRIPTION = `an id: ${ID_RULES}`;

/**
 * Ids as clients choose them (ERP ids such as `R 2026-11-23`): see ID_RULES. Ids travel in URL paths
 * (percent-encode them: `R%202026-11-23`), so `/` is refused, and so are `.` and `..`: clients, proxies and
 * gateways resolve them as dot segments (RFC 3986 §5.2.4, even as `%2E`), so the id could never be read or
 * deleted again. Spaces at either end are refused because they are invisible and almost always a copy-paste
 * accident (an id that differs only by them would look like a duplicate).
 */
export const Id = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.string().check(
    /* @__PURE__ */ z.superRefine((value, context) => {
      const problem =
        textProblem(value, { min: 1, max: MAX_ID_CHARS, multiLine: false, notBlank: false }) ??
        (Buffer.byteLength(value, 'utf8') > MAX_ID_BYTES
          ? `must be at most ${MAX_ID_BYTES} bytes in UTF-8 (ids become database keys); this one has ${Buffer.byteLength(value, 'utf8')}`
          : value.includes('/')
            ? `must not contain "/" (ids travel in URL paths)`
            : value === '.' || value === '..'
              ? `must not be "." or ".." (ids travel in URL paths, where these name no segment)`
              : /^\s|\s$/u.test(value)
                ? 'must not start or end with whitespace'
                : undefined);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }),
  ),
  { minLength: 1, maxLength: MAX_ID_CHARS, description: ID_DESCRIPTION },
);

/** Human-readable names: 1..200 characters, not blank, on one line. */
export const Name = /* @__PURE__ */ Label(200, { min: 1, notBlank: true });

// ---------------------------------------------------------------------------------------------------
// Numbers and times
// ---------------------------------------------------------------------------------------------------

/**
 * The smallest magnitude DynamoDB stores (1E-130): a smaller non-zero number is refused with "Number
 * underflow". Its largest (9.99...E+125) and its 38 significant digits never matter for a JS number: the
 * SDK writes a number with `String(n)` (at most 17 significant digits) and refuses, before sending, any
 * beyond Number.MAX_SAFE_INTEGER.
 */
const MIN_STORABLE_MAGNITUDE = 1e-130;
const STORABLE_NUMBER_RULE = `must be 0 or have a magnitude between 1e-130 and ${Number.MAX_SAFE_INTEGER} (what the database stores)`;

/** A finite number DynamoDB (through the SDK) can store: 0, or a magnitude in 1E-130..2^53-1. */
export const StorableNumber = /* @__PURE__ */ z
  .number()
  .check(
    /* @__PURE__ */ z.refine(
      (value) =>
        value === 0 ||
        (Math.abs(value) >= MIN_STORABLE_MAGNITUDE && Math.abs(value) <= Number.MAX_SAFE_INTEGER),
      STORABLE_NUMBER_RULE,
    ),
  );

export const EpochMillis = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.int().check(/* @__PURE__ */ z.minimum(0)),
  {
    description: 'milliseconds since the Unix epoch',
  },
);

/** 2000-01-01T00:00:00Z and 2100-01-01T00:00:00Z: a client's time outside is a bug (seconds, not ms). */
export const MIN_TIMESTAMP = Date.UTC(2000, 0, 1);
export const MAX_TIMESTAMP = Date.UTC(2100, 0, 1);

/** A time a client sends: epoch milliseconds from 2000-01-01 to 2100-01-01 (UTC). */
export const Timestamp = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z
    .int()
    .check(
      /* @__PURE__ */ z.minimum(MIN_TIMESTAMP, 'must be a time from 2000-01-01 (epoch milliseconds)'),
      /* @__PURE__ */ z.maximum(MAX_TIMESTAMP, 'must be a time up to 2100-01-01 (epoch milliseconds)'),
    ),
  { description: 'milliseconds since the Unix epoch, 2000-01-01..2100-01-01' },
);

/** Clocks of phones drift; a reported time further ahead than this is a client bug, not a skew. */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/** A time a client reports for something that happened (a visit, a ping): not in the future. */
export const ReportedTimestamp = /* @__PURE__ */ Timestamp.check(
  /* @__PURE__ */ z.refine(
    (timestamp) => timestamp <= Date.now() + MAX_CLOCK_SKEW_MS,
    'is more than 5 minutes in the future',
  ),
);

/** A schema with an id, or null: documented as `anyOf: [component, {type: 'null'}]`. */
export const orNull = /* @__NO_SIDE_EFFECTS__ */ <T extends z.ZodMiniType>(schema: T) =>
  /* @__PURE__ */ z.union([schema, /* @__PURE__ */ z.null()]);

export const Location = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({
    latitude: /* @__PURE__ */ StorableNumber.check(
      /* @__PURE__ */ z.minimum(-90),
      /* @__PURE__ */ z.maximum(90),
    ),
    longitude: /* @__PURE__ */ StorableNumber.check(
      /* @__PURE__ */ z.minimum(-180),
      /* @__PURE__ */ z.maximum(180),
    ),
  }),
  { id: 'Location' },
);

export const DcParams = /* @__PURE__ */ z.object({ dc_id: Id });

/** The most rows a page of any list holds. */
export const MAX_PAGE_ROWS = 1000;

/**
 * A whole number written in decimal digits in a query string, `min..max`. Not `z.coerce.number()`, which
 * takes whatever `Number()` reads: `0x10`, `1e3`, ` 10` or an empty string would pass as numbers. A number
 * passes as it is: that is a default (`queryIntegerOr`), never a query string's value.
 */
export const QueryInteger = /* @__NO_SIDE_EFFECTS__ */ (min: number, max: number) =>
  /* @__PURE__ */ z.pipe(
    /* @__PURE__ */ z.transform((value: unknown, context) => {
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && /^[0-9]+$/.test(value)) return Number(value);
      context.issues.push({
        code: 'custom',
        message: 'must be a whole number in decimal digits',
        input: value,
      });
      return z.NEVER;
    }),
    /* @__PURE__ */ z.int().check(/* @__PURE__ */ z.minimum(min), /* @__PURE__ */ z.maximum(max)),
  );

/**
 * QueryInteger(min, max), `fallback` when absent. A prefault, not a default: the document drops a default
 * from a schema that transforms its input, and states a prefault as the parameter's default.
 */
export const queryIntegerOr = /* @__NO_SIDE_EFFECTS__ */ (min: number, max: number, fallback: number) =>
  /* @__PURE__ */ z.prefault(QueryInteger(min, max), fallback);

/** Optional paging of the driver list: without `limit` the whole list is returned. */
export const PaginationQuery = /* @__PURE__ */ z.object({
  limit: /* @__PURE__ */ z.optional(/* @__PURE__ */ QueryInteger(1, MAX_PAGE_ROWS)),
  next_token: /* @__PURE__ */ z.optional(/* @__PURE__ */ SafeText({ min: 1, max: 2048 })),
});

export const NextToken = /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(/* @__PURE__ */ z.string()), {
  description: 'present when more items remain',
});

/** A page of a paged list as an answer holds it: its rows under `name`, and the token of the next page. */
export const pageOf = /* @__NO_SIDE_EFFECTS__ */ <const Name extends string, Row extends z.ZodMiniType>(
  name: Name,
  row: Row,
) =>
  z.object({ [name]: z.array(row), next_token: NextToken } as Record<Name, z.ZodMiniArray<Row>> & {
    next_token: typeof NextToken;
  });

/**
 * Paging of a list that grows with a route: `limit` rows per page, `defaultLimit` without one. A page also
 * ends early once its rows reach PAGE_BYTE_BUDGET, which keeps it under Lambda's 6 MB response limit
 * whatever the rows hold (checked in test/unit/page-sizes.test.ts).
 */
export interface PageSize {
  defaultLimit: number;
  maxLimit: number;
}

/** Pages of MAX_PAGE_ROWS rows unless `limit` asks for fewer. */
export const FULL_PAGES = {
  defaultLimit: MAX_PAGE_ROWS,
  maxLimit: MAX_PAGE_ROWS,
} as const satisfies PageSize;

/** How the byte budget ends a page, as the API documentation says it. */
export const PAGE_BYTES_NOTE =
  `A page ends earlier once its rows reach ${PAGE_BYTE_BUDGET / (1024 * 1024)} MiB of the response ` +
  '(it always holds at least one row); its `next_token` continues just after its last row.';

export const pagedQuery = /* @__NO_SIDE_EFFECTS__ */ ({ defaultLimit, maxLimit }: PageSize) =>
  /* @__PURE__ */ z.object({
    limit: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ queryIntegerOr(1, maxLimit, defaultLimit), {
      description: `most rows per page, 1..${maxLimit}; ${defaultLimit} when absent. ${PAGE_BYTES_NOTE}`,
    }),
    next_token: /* @__PURE__ */ z.withMeta(PaginationQuery.shape.next_token, {
      description: 'the `next_token` of the previous page',
    }),
  });

/** A ping of the driver's trace (location history): when, and where. */
export const TracePoint = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.object({ timestamp: EpochMillis, location: Location }),
  { id: 'TracePoint' },
);

/** Trace pages: full pages (1,000 pings, under 3 hours at one ping every 10 seconds). */
export const TRACE_PAGE_SIZE = FULL_PAGES;

/** An epoch-millisecond bound of a query (`from`, `to`). */
export const EpochMillisQuery = /* @__PURE__ */ z.coerce
  .number()
  .check(/* @__PURE__ */ z.int(), /* @__PURE__ */ z.minimum(0));

export const EmptyData = /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.object({}), { id: 'Empty' });

/** True for a real calendar date written YYYY-MM-DD (2024-02-30 is not one). */
export function isCalendarDate(date: string): boolean {
  const parsed = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(date);
}

export const CalendarDate = /* @__PURE__ */ Label(10).check(
  /* @__PURE__ */ z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD'),
  /* @__PURE__ */ z.refine(isCalendarDate, 'is not a calendar date'),
);
