import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A CloudFormation template, as far as the local runtime reads it. */
export interface Template {
  Parameters?: Record<string, { Type?: string; Default?: unknown }>;
  Conditions?: Record<string, unknown>;
  Mappings?: Record<string, Record<string, Record<string, unknown>>>;
  Resources?: Record<string, TemplateResource>;
  Outputs?: Record<string, { Value?: unknown; Export?: { Name?: unknown }; Condition?: string }>;
}

export interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
  Condition?: string;
}

/** A stack of the app, as the cloud assembly lists it. */
export interface AssemblyStack {
  stackName: string;
  templateFile: string;
  template: Template;
}

/** The parts of a cloud assembly directory (`cdk.out`) the templates are read from. */
export interface CloudAssemblyFiles {
  dir: string;
  stacks: AssemblyStack[];
  /**
   * The file of each file asset by its S3 object key: a nested stack's TemplateURL names the object its
   * template is uploaded to, and the assets manifest says which local file that is.
   */
  assetFileByObjectKey: ReadonlyMap<string, string>;
}

interface Manifest {
  artifacts?: Record<
    string,
    { type: string; properties?: { templateFile?: string; stackName?: string; file?: string } }
  >;
}

interface AssetManifest {
  files?: Record<
    string,
    { source: { path: string; packaging?: string }; destinations: Record<string, { objectKey: string }> }
  >;
}

export function readJson<T>(dir: string, file: string): T {
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as T;
}

/** Reads manifest.json: each stack's template, and the asset manifests' files by object key. */
export function readCloudAssembly(dir: string): CloudAssemblyFiles {
  const manifest = readJson<Manifest>(dir, 'manifest.json');
  const stacks: AssemblyStack[] = [];
  const assetFileByObjectKey = new Map<string, string>();
  for (const [artifactId, artifact] of Object.entries(manifest.artifacts ?? {})) {
    const properties = artifact.properties ?? {};
    if (artifact.type === 'aws:cloudformation:stack') {
      if (!properties.templateFile) throw new Error(`manifest.json: stack ${artifactId} has no templateFile`);
      stacks.push({
        // CDK leaves stackName out when it equals the artifact id.
        stackName: properties.stackName ?? artifactId,
        templateFile: properties.templateFile,
        template: readJson<Template>(dir, properties.templateFile),
      });
    } else if (artifact.type === 'cdk:asset-manifest' && properties.file) {
      const assets = readJson<AssetManifest>(dir, properties.file);
      for (const asset of Object.values(assets.files ?? {})) {
        for (const destination of Object.values(asset.destinations)) {
          assetFileByObjectKey.set(destination.objectKey, asset.source.path);
        }
      }
    } else if (artifact.type === 'cdk:cloud-assembly') {
      // A Stage's stacks live in a nested assembly, which the local runtime does not deploy.
      throw new Error(`manifest.json: nested cloud assembly ${artifactId} (a CDK Stage) is not supported`);
    }
  }
  return { dir, stacks, assetFileByObjectKey };
}
