import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The README is the path in; the reference it links to is checked by docs.test.ts. */
describe('README', () => {
  it('gives the set-up and test commands CI runs', () => {
    for (const command of ['npm install', 'npm start', 'npm test']) expect(readme).toContain(command);
  });
});
