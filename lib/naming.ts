/** 'drivers/finish-routes' -> 'DriversFinishRoutes'; 'QUOTA_EXCEEDED'.toLowerCase() -> 'QuotaExceeded'. */
export function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join('');
}

/** Construct id of a handler module's function: 'drivers/finish-routes' -> 'DriversFinishRoutesFunction'. */
export function functionId(handlerModule: string): string {
  return `${pascalCase(handlerModule)}Function`;
}
