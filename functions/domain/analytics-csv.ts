import { stringify } from 'csv-stringify';

/** First characters a spreadsheet reads as the start of a formula (csv-stringify's list, and `|`). */
const FORMULA_STARTS = /^[=+\-@\t\r|\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * A cell csv-stringify's `escape_formulas` lets through that a spreadsheet may still run: `|` first (the
 * pipe of Excel's DDE payloads, `|cmd`), or a formula start behind leading white space, which some
 * spreadsheets strip before reading the cell (` =1+1`). Written behind a ' like the rest.
 */
function escapeOtherFormulas(value: string): string {
  return value.startsWith('|') || (/^\s/.test(value) && FORMULA_STARTS.test(value.trimStart()))
    ? `'${value}`
    : value;
}

/**
 * A CSV writer of the analytics files: RFC 4180 (CRLF, header = `columns`). Every cell holding a line break
 * is quoted (`quote_record_delimiter`: with a record delimiter of its own, csv-stringify would otherwise
 * write a bare `\n` as it is, and a reader would start a new row there: a name `x\n=1+1` could forge one).
 * A text cell a spreadsheet would run as a formula (=, +, -, @, tab, CR first; `|` first; any of them
 * behind leading white space: a customer's or route's name is the ERP's or a driver's text) is written
 * behind a ' (OWASP's CSV injection advice); numbers are written as they are.
 */
export function analyticsCsv(columns: readonly string[]) {
  return stringify({
    header: true,
    columns: [...columns],
    record_delimiter: 'windows',
    quote_record_delimiter: true,
    escape_formulas: true,
    cast: { string: escapeOtherFormulas },
  });
}
