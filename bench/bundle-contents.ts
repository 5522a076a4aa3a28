import type { BuiltBundle } from './bundle-build';

/** What an asset's code holds (bench/bundles.ts), from esbuild's metafile: bytes by package, SDK clients, import chains. */

/** `node_modules/@scope/name/...` -> `@scope/name` (the innermost package); undefined for the service's own code. */
export function packageOf(inputPath: string): string | undefined {
  const at = inputPath.lastIndexOf('node_modules/');
  if (at < 0) return undefined;
  const [first, second] = inputPath.slice(at + 'node_modules/'.length).split('/');
  return first?.startsWith('@') ? `${first}/${second}` : first;
}

export const OWN_CODE = '(service code)';

/** Every input file with its bytes in the asset's code files (entry and chunks together). */
function inputsInOutput(bundle: BuiltBundle): Map<string, number> {
  const bytes = new Map<string, number>();
  for (const key of bundle.outputKeys)
    for (const [path, input] of Object.entries(bundle.metafile.outputs[key]?.inputs ?? {}))
      bytes.set(path, (bytes.get(path) ?? 0) + input.bytesInOutput);
  return bytes;
}

/** Bytes each package (and the service's own code, OWN_CODE) contributes to the bundle, largest first. */
export function bytesByPackage(bundle: BuiltBundle): { name: string; bytes: number }[] {
  const totals = new Map<string, number>();
  for (const [path, bytes] of inputsInOutput(bundle)) {
    const name = packageOf(path) ?? OWN_CODE;
    totals.set(name, (totals.get(name) ?? 0) + bytes);
  }
  return [...totals].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/** The packages the bundle imports at run time instead of containing them (node: builtins aside): none. */
export function externalImports(bundle: BuiltBundle): string[] {
  const imports = bundle.outputKeys.flatMap((key) => bundle.metafile.outputs[key]?.imports ?? []);
  const builtin = (path: string) =>
    path.startsWith('node:') || (!path.includes('/') && /^[a-z_]+$/.test(path));
  return [...new Set(imports.filter((i) => i.external && !builtin(i.path)).map((i) => i.path))].sort();
}

/** The AWS SDK clients (`@aws-sdk/client-*`) in the bundle, and the bytes of the SDK (@aws-sdk, @smithy) in it. */
export function bundledSdk(bundle: BuiltBundle): { clients: string[]; bytes: number } {
  const clients = new Set<string>();
  let bytes = 0;
  for (const [path, inOutput] of inputsInOutput(bundle)) {
    const name = packageOf(path);
    if (!name || inOutput === 0) continue;
    if (name.startsWith('@aws-sdk/client-')) clients.add(name);
    if (name.startsWith('@aws-sdk/') || name.startsWith('@smithy/')) bytes += inOutput;
  }
  return { clients: [...clients].sort(), bytes };
}

/**
 * The shortest import chain from the handler to the first file of `pkg` that has bytes in the bundle, or,
 * for a package left out of the bundle (`@aws-sdk/*`), to the first included file that imports it:
 * `functions/api/x/handler.ts > functions/shared/observability.ts > @aws-lambda-powertools/logger`. Files of one
 * package in a row are shown as the package, once.
 */
export function importChain(bundle: BuiltBundle, pkg: string): string | undefined {
  const inOutput = inputsInOutput(bundle);
  const included = (path: string) => (inOutput.get(path) ?? 0) > 0;
  const previous = new Map<string, string | undefined>([[bundle.entryKey, undefined]]);
  const chainTo = (path: string, ...rest: string[]) => {
    const files: string[] = [];
    for (let at: string | undefined = path; at !== undefined; at = previous.get(at)) files.unshift(at);
    const names = [...files.map((file) => packageOf(file) ?? file), ...rest];
    return names.filter((name, index) => name !== names[index - 1]).join(' > ');
  };
  const queue = [bundle.entryKey];
  for (let i = 0; i < queue.length; i++) {
    const path = queue[i] as string;
    if (packageOf(path) === pkg && included(path)) return chainTo(path);
    for (const imported of bundle.metafile.inputs[path]?.imports ?? []) {
      if (imported.external) {
        if (included(path) && (imported.path === pkg || imported.path.startsWith(`${pkg}/`)))
          return chainTo(path, `${imported.path} (external)`);
        continue;
      }
      if (previous.has(imported.path)) continue;
      previous.set(imported.path, path);
      queue.push(imported.path);
    }
  }
  return undefined;
}
