import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answers, readmeText, walkthroughBlocks } from '../support/readme-walkthrough';

const readme = readmeText();

/**
 * The README is the short path in: set-up commands and a walkthrough, whose blocks
 * test/e2e/readme-walkthrough.test.ts runs against `npm start`. What can be checked without running them is
 * checked here. The reference it links to is checked by docs.test.ts.
 */
describe('README', () => {
  it('is a short path in', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(420);
  });

  it('names the packages whose install warns, as expected: those wanting a newer Node, those with install scripts', () => {
    const lock = JSON.parse(readFileSync(join(import.meta.dirname, '../../package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string }; hasInstallScript?: boolean }>;
    };
    // Installed with the prerequisites' Node (20), npm warns EBADENGINE for a package that wants 22 or later.
    const warning = Object.entries(lock.packages).filter(
      ([path, entry]) =>
        path !== '' &&
        (entry.hasInstallScript ||
          (/^>=\s*(2[2-9]|[3-9]\d)/.test(entry.engines?.node?.trim() ?? '') &&
            !entry.engines?.node?.includes('||'))),
    );
    expect(warning.length).toBeGreaterThan(3);
    const expected = readme.slice(
      readme.indexOf('Expected `npm install` warnings'),
      readme.indexOf('`npm start` serves'),
    );
    for (const [path] of warning) expect(expected, path).toContain(path.replace(/^.*node_modules\//, ''));
  });

  it('gives the set-up and test commands CI runs', () => {
    for (const command of ['npm install', 'npm start', 'npm test']) expect(readme).toContain(command);
  });

  it('starts every walkthrough block with the question it answers and shows the answer of every command', () => {
    const blocks = walkthroughBlocks(readme);
    expect(blocks.length).toBeGreaterThan(5);
    for (const block of blocks) expect(block.steps.length, block.question).toBeGreaterThan(0);
  });

  it('sends every walkthrough request body as JSON', () => {
    const commands = walkthroughBlocks(readme)
      .flatMap((block) => block.steps.map((step) => step.commands))
      .join('\n')
      // One command a line: continuation lines, and a body that runs over lines, joined to their curl.
      .replace(/\\\n/g, ' ')
      .split(/\n(?=\S)/)
      .filter((command) => command.includes('curl '));
    const withBody = commands.filter((command) => /\s(-d|--data[\w-]*)\s/.test(command));
    expect(withBody.length).toBeGreaterThan(10);
    for (const command of withBody) expect(command).toContain("-H 'Content-Type: application/json'");
  });
});

describe('a walkthrough answer', () => {
  it('matches the output it shows, with … for any text, and nothing else', () => {
    expect(answers('{"txid":"imp_12ab"}\n', '{"txid":"imp_…"}')).toBe(true);
    expect(answers('a\nb', 'a\nb')).toBe(true);
    expect(answers('{"txid":"imp_12ab"} and more', '{"txid":"imp_…"}')).toBe(false);
    expect(answers('{"code":3012}', '{"code":…,"x":1}')).toBe(false);
    expect(answers('a.b', 'a…b')).toBe(true);
    expect(answers('axb', 'a.b')).toBe(false);
  });
});
