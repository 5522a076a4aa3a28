import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../functions/shared/error-codes';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('lists every error code the service answers with, with its HTTP status', () => {
    const rows = [...readme.matchAll(/^\| (\d{4}) +\| (\d{3}) +\|/gm)].map(
      (match) => `${match[1]} ${match[2]}`,
    );
    const codes = Object.values(ERROR_CODES).map((entry) => `${entry.code} ${entry.httpStatus}`);
    expect(rows.sort()).toEqual(codes.sort());
  });

  it('gives the set-up and test commands CI runs', () => {
    for (const command of ['npm install', 'npm start', 'npm test']) expect(readme).toContain(command);
  });
});
