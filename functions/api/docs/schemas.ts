import { endpointGroup } from '../define';

/** The files `GET /docs/assets/{file}` serves; anything else is 404 (code 1007), so no path reaches the disk. */
export const DOCS_ASSET_FILES = [
  'swagger-ui-bundle.js',
  // The bundle's license comment points here, beside it.
  'swagger-ui-bundle.js.LICENSE.txt',
  'swagger-ui.css',
  'initializer.js',
] as const;

export type DocsAssetFile = (typeof DOCS_ASSET_FILES)[number];

/** The docs rows: anyone's, served as they are (no envelope), reading nothing but the bundle. */
export const docsEndpoint = endpointGroup({ auth: 'none', tag: 'Docs', access: {}, envelope: false });
