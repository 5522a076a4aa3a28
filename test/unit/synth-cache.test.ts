import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lib/bundling';
import { cachedSynthesis } from '../../local/cloud/synth';

const cacheDir = mkdtempSync(join(tmpdir(), 'synth-cache-test-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

describe('cached synthesis', () => {
  it('reuses the synthesized app while no file it is made of changed, and synthesizes again when one did', async () => {
    let syntheses = 0;
    const synthesis = () => cachedSynthesis({ cacheDir, onSynthesize: () => syntheses++ });
    const template = (assembly: string) => join(assembly, 'DeliveryRoutes-Api.template.json');

    const first = await synthesis();
    expect(syntheses).toBe(1);
    const writtenAt = statSync(template(first)).mtimeMs;
    const inputsFile = join(dirname(first), 'inputs.json');
    const inputs = JSON.parse(readFileSync(inputsFile, 'utf8')) as Record<string, string>;
    // The app's modules (lib/, the rows it reads), cdk.json's flags and the installed packages.
    for (const file of ['lib/delivery-routes.ts', 'functions/api/index.ts', 'cdk.json', 'package-lock.json'])
      expect(Object.keys(inputs)).toContain(join(REPO_ROOT, file));

    const again = await synthesis();
    expect(syntheses).toBe(1);
    expect(again).toBe(first);
    expect(statSync(template(again)).mtimeMs).toBe(writtenAt);

    // As if lib/delivery-routes.ts had changed since: its recorded content is no longer the file's.
    writeFileSync(
      inputsFile,
      JSON.stringify({ ...inputs, [join(REPO_ROOT, 'lib/delivery-routes.ts')]: '0' }),
    );
    const changed = await synthesis();
    expect(syntheses).toBe(2);
    expect(JSON.parse(readFileSync(template(changed), 'utf8'))).toMatchObject({
      Resources: expect.any(Object),
    });
    expect(JSON.parse(readFileSync(join(dirname(changed), 'inputs.json'), 'utf8'))).toEqual(inputs);
  }, 120_000);
});
