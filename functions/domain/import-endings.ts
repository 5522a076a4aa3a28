/**
 * The endings of an import that the deadline check (import-deadline-check.ts) loads with `import()` when one
 * is due. A bundler keeps every export of a module loaded that way: this one has only these three, so a function
 * that bundles route-import.ts keeps only what it uses of it.
 */
export { abandonOverdueImport, failExpiredUpload } from './route-import';
export { abandonOverdueRevision } from './route-revisions';
