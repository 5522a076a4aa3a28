/** `npm run openapi`: writes openapi.json (the same document GET /openapi.json serves). */
import { writeFileSync } from 'node:fs';
import { endpoints } from '../functions/api/index';
import { buildOpenApiDocument } from '../functions/api/openapi';

const path = process.argv[2] ?? 'openapi.json';
writeFileSync(path, `${JSON.stringify(buildOpenApiDocument(endpoints), null, 2)}\n`);
console.log(`wrote ${path} (${endpoints.length} operations)`);
