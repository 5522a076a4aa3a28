import { fileURLToPath, pathToFileURL } from 'node:url';

type LambdaHandler = (event: unknown, context: unknown) => Promise<unknown>;

const handlersDir = fileURLToPath(new URL('../functions/handlers/', import.meta.url));
const loaded = new Map<string, Promise<LambdaHandler>>();

/** Imports `functions/handlers/<name>.ts` once (a "cold start") and returns its exported `handler`. */
export function loadHandler(name: string): Promise<LambdaHandler> {
  let handler = loaded.get(name);
  if (!handler) {
    handler = import(pathToFileURL(`${handlersDir}${name}.ts`).href).then(
      (module: { handler?: LambdaHandler }) => {
        if (typeof module.handler !== 'function')
          throw new Error(`functions/handlers/${name}.ts exports no handler`);
        return module.handler;
      },
    );
    loaded.set(name, handler);
  }
  return handler;
}
