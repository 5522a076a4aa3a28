/**
 * The runtime inside one local execution environment: what /var/runtime/index.mjs of the nodejs22.x runtime
 * (aws-lambda-nodejs-runtime-interface-client, "RIC") does on AWS, with the parent's IPC channel in place of
 * the Runtime API. Plain JavaScript with node: imports only, run by node as the process's main module, so
 * nothing of the parent (tsx, vitest) is loaded here.
 *
 * Init: patch the console as the RIC does, load `_HANDLER` from LAMBDA_TASK_ROOT by the RIC's rules, then
 * report `ready` (or the init error, and exit). Invoke, one at a time: parse the event from its JSON, call
 * the handler with a context like the RIC's, and report its JSON response or its error. The RIC's process
 * handlers stay: an uncaught exception or an unhandled rejection fails the current invocation and ends the
 * process (exit 129 / 128), and an event loop that runs empty before the handler settles ends the
 * invocation (Runtime.NodeJsExit for an async function, a null response otherwise).
 *
 * An invocation's output on each of stdout and stderr is framed by marker lines (`<marker>START <id>` and
 * `<marker>END <id>`, the marker a per-environment secret given with each invoke) so that the parent tags
 * every line with its request id, whichever of the pipes and the IPC channel it reads first. A stream gets
 * them only when the invocation writes to it, and the answer names those streams (`wrote`): the parent waits
 * for their END markers only. Most invocations write nothing: without the four marker writes, a silent
 * invocation's round trip costs the two processes about a quarter less CPU.
 */
import { createRequire } from 'node:module';

/**
 * Built-ins are required, not imported: node builds an ES module's view of a built-in from the value of every
 * export, and getters among them load more built-ins (node:util's diff and parseArgs, node:fs's promises),
 * which, with the V8 flags Lambda's node runs with, compile without node's code cache. Imported, these five
 * cost every environment's start about 20 ms of CPU (a process with them: 59.9 ms against 40.2, medians of 15).
 */
const require = createRequire(import.meta.url);
const { existsSync, readFileSync } = require('node:fs');
const { basename, dirname, join, resolve } = require('node:path');
const { pathToFileURL } = require('node:url');
const { format, types } = require('node:util');

/**
 * This process's peak resident memory (KiB): VmHWM, the high-water mark of its own memory since it started
 * node. Not getrusage's maxRSS: Linux carries that across exec from the process that forked this one, so a
 * runtime process larger than a function's memory size made every cold start of the function look out of
 * memory. Where /proc is not there, maxRSS (which may then overstate).
 */
function peakRssKiB() {
  try {
    const status = readFileSync('/proc/self/status', 'latin1');
    const peak = /^VmHWM:\s+(\d+)/m.exec(status);
    if (peak) return Number(peak[1]);
  } catch {
    // no /proc here
  }
  return process.resourceUsage().maxRSS;
}

/** The RIC keeps the request id here; its console lines and some libraries read it. */
const REQUEST_ID = Symbol.for('aws.lambda.runtime.requestId');

/** The RIC's error classes (Errors.js): their names are the errorType Lambda reports. */
class ImportModuleError extends Error {}
class HandlerNotFound extends Error {}
class MalformedHandlerName extends Error {}
class UserCodeSyntaxError extends Error {}
class NodeJsExit extends Error {
  constructor() {
    super(
      'The Lambda runtime client detected an unexpected Node.js exit code. This is most commonly caused by a Promise that was never settled. For more information, see https://nodejs.org/docs/latest/api/process.html#exit-codes',
    );
  }
}
class UnhandledPromiseRejection extends Error {
  constructor(reason, promise) {
    super(reason);
    this.reason = reason;
    this.promise = promise;
  }
}
for (const errorClass of [
  ImportModuleError,
  HandlerNotFound,
  MalformedHandlerName,
  UserCodeSyntaxError,
  NodeJsExit,
  UnhandledPromiseRejection,
])
  errorClass.prototype.name = `Runtime.${errorClass.name}`;

/** The error as the Runtime API receives it (Errors.toRapidResponse). */
function toRapidResponse(error) {
  try {
    if (types.isNativeError(error) || isErrorLike(error))
      return {
        errorType: error.name?.replaceAll('\x7F', '%7F'),
        errorMessage: error.message?.replaceAll('\x7F', '%7F'),
        trace: error.stack.replaceAll('\x7F', '%7F').split('\n'),
      };
    return { errorType: typeof error, errorMessage: String(error), trace: [] };
  } catch {
    return {
      errorType: 'handled',
      errorMessage:
        'callback called with Error argument, but there was a problem while retrieving one or more of its message, name, and stack',
    };
  }
}

function isErrorLike(value) {
  return (
    typeof value?.name === 'string' &&
    typeof value.message === 'string' &&
    typeof value.stack === 'string' &&
    value.name !== '' &&
    value.message !== '' &&
    value.stack !== ''
  );
}

/** The error as the RIC logs it (Errors.toFormatted): a tab, then JSON with the stack as lines. */
function toFormatted(error) {
  try {
    return `\t${JSON.stringify(error, (_key, value) => withEnumerableProperties(value))}`;
  } catch {
    return `\t${JSON.stringify(toRapidResponse(error))}`;
  }
}

function withEnumerableProperties(value) {
  if (!(value instanceof Error)) return value;
  const properties = { errorType: value.name, errorMessage: value.message, code: value.code, ...value };
  if (typeof value.stack === 'string') properties.stack = value.stack.split('\n');
  return properties;
}

/** The RIC's text log format on stdout: time, request id, level, message; newlines become \r. */
function patchConsole() {
  const write =
    (level) =>
    (message, ...params) => {
      const text = `${new Date().toISOString()}\t${globalThis[REQUEST_ID]}\t${level}\t${format(message, ...params)}`;
      process.stdout.write(`${text.replace(/\n/g, '\r')}\n`);
    };
  console.trace = write('TRACE');
  console.debug = write('DEBUG');
  console.info = write('INFO');
  console.log = console.info;
  console.warn = write('WARN');
  console.error = write('ERROR');
  console.fatal = write('FATAL');
}

/** structuredConsole.logError of the RIC's text format. */
function logError(title, error) {
  console.error(title, toFormatted(error instanceof Error ? error : new Error(error)));
}

/** UserFunction.load: `<module path>.<export path>` under the task root, with the RIC's errors. */
async function loadHandler(appRoot, fullHandlerString) {
  if (fullHandlerString.includes('..'))
    throw new MalformedHandlerName(
      `'${fullHandlerString}' is not a valid handler name. Use absolute paths when specifying root directories in handler names.`,
    );
  const handlerString = basename(fullHandlerString);
  const moduleRoot = fullHandlerString.substring(0, fullHandlerString.indexOf(handlerString));
  const match = handlerString.match(/^([^.]*)\.(.*)$/);
  if (!match) throw new MalformedHandlerName('Bad handler');
  const [, moduleName, handlerPath] = match;

  // The RIC provides this global; response streaming is not run locally, so using it fails at init.
  globalThis.awslambda = {
    streamifyResponse: () => {
      throw new Error(
        'awslambda.streamifyResponse: response streaming is not supported by the local runtime',
      );
    },
  };

  let app;
  try {
    app = await loadUserModule(appRoot, moduleRoot, moduleName);
  } catch (error) {
    if (error instanceof SyntaxError) throw new UserCodeSyntaxError(error);
    if (error?.code === 'MODULE_NOT_FOUND') throw new ImportModuleError(error);
    throw error;
  }
  const handler = handlerPath.split('.').reduce((nested, key) => nested?.[key], app);
  if (!handler) throw new HandlerNotFound(`${fullHandlerString} is undefined or not exported`);
  if (typeof handler !== 'function') throw new HandlerNotFound(`${fullHandlerString} is not a function`);
  return handler;
}

/** The RIC's order: extensionless, `.js` (CommonJS unless a package.json says module), `.mjs`, `.cjs`. */
async function loadUserModule(appRoot, moduleRoot, moduleName) {
  const path = resolve(appRoot, moduleRoot, moduleName);
  if (existsSync(path)) return require(path);
  const typeModule = existsSync(`${path}.js`) && packageTypeIsModule(dirname(`${path}.js`));
  if (!typeModule && existsSync(`${path}.js`)) return require(`${path}.js`);
  if (typeModule) return import(pathToFileURL(`${path}.js`).href);
  if (existsSync(`${path}.mjs`)) return import(pathToFileURL(`${path}.mjs`).href);
  if (existsSync(`${path}.cjs`)) return require(`${path}.cjs`);
  return require(require.resolve(moduleName, { paths: [appRoot, moduleRoot] }));
}

function packageTypeIsModule(folder) {
  if (folder.endsWith('/node_modules')) return false;
  const packageJson = join(folder, 'package.json');
  if (existsSync(packageJson)) {
    try {
      return JSON.parse(readFileSync(packageJson, 'utf8'))?.type === 'module';
    } catch {
      return false;
    }
  }
  return folder === '/' ? false : packageTypeIsModule(resolve(folder, '..'));
}

/** Sends to the parent, then runs `then` once the message is written. */
function report(message, then) {
  process.send(message, undefined, undefined, then);
}

/** The handler, once init has loaded it. */
let handler;
/** The invocation in progress, if any. */
let current;

/** A process-level failure: the RIC posts it as the current invocation's (or the init's) error and exits. */
function crash(error, exitCode) {
  const response = toRapidResponse(error);
  if (!handler) report({ type: 'initError', error: response }, () => process.exit(exitCode));
  else
    report({ type: 'fatal', requestId: current?.requestId, error: response }, () => process.exit(exitCode));
}

process.on('uncaughtException', (error) => {
  logError('Uncaught Exception', error);
  crash(error, 129);
});
process.on('unhandledRejection', (reason, promise) => {
  const error = new UnhandledPromiseRejection(reason, promise);
  logError('Unhandled Promise Rejection', error);
  crash(error, 128);
});
// The environment goes when the local runtime goes.
process.on('disconnect', () => process.exit(0));
// The channel is unreferenced during an invocation: an empty event loop then means the handler's promise can
// never settle, which the RIC's beforeExit listener turns into the invocation's outcome.
process.on('beforeExit', () => {
  if (!current) return;
  if (handler.constructor.name === 'AsyncFunction') {
    const error = new NodeJsExit();
    logError('Invoke Error', error);
    current.finish({ type: 'error', error: toRapidResponse(error) });
  } else current.succeed(null);
});

/** Every write to stdout or stderr during an invocation goes after that invocation's START marker. */
function markInvocationOutput(name) {
  const stream = process[name];
  const write = stream.write;
  stream.write = function markedWrite(...args) {
    if (current && !current.wrote.includes(name)) {
      current.wrote.push(name);
      write.call(stream, `${current.marker}START ${current.requestId}\n`);
    }
    return write.apply(stream, args);
  };
}

function invoke({ requestId, event, deadline, invokedFunctionArn, traceId, marker }) {
  globalThis[REQUEST_ID] = requestId;
  if (traceId) process.env._X_AMZN_TRACE_ID = traceId;
  else delete process.env._X_AMZN_TRACE_ID;
  /** The streams this invocation wrote to (markInvocationOutput fills it). */
  const wrote = [];
  process.channel.unref();

  let finished = false;
  const finish = (outcome) => {
    if (finished) return;
    finished = true;
    current = undefined;
    for (const name of wrote) process[name].write(`${marker}END ${requestId}\n`);
    process.channel.ref();
    process.send({ ...outcome, requestId, wrote, maxRssKiB: peakRssKiB() });
  };
  const succeed = (result) => {
    let payload;
    try {
      payload = JSON.stringify(result === undefined ? null : result);
    } catch {
      return fail(new Error('Unable to stringify response body'));
    }
    finish({ type: 'response', payload });
  };
  const fail = (error) => {
    const reported = error ?? 'handled';
    logError('Invoke Error', reported);
    finish({ type: 'error', error: toRapidResponse(reported) });
  };
  const done = (error, result) => (error !== undefined && error !== null ? fail(error) : succeed(result));
  current = { requestId, marker, wrote, finish, succeed };

  let waitsForEmptyEventLoop = true;
  const context = {
    get callbackWaitsForEmptyEventLoop() {
      return waitsForEmptyEventLoop;
    },
    set callbackWaitsForEmptyEventLoop(value) {
      waitsForEmptyEventLoop = value;
    },
    succeed,
    fail,
    done,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    clientContext: undefined,
    identity: undefined,
    invokedFunctionArn,
    awsRequestId: requestId,
    getRemainingTimeInMillis: () => deadline - Date.now(),
  };

  try {
    const result = handler(JSON.parse(event), context, done);
    if (typeof result?.then === 'function') result.then(succeed, fail);
  } catch (error) {
    fail(error);
  }
}

/**
 * Node builds an ES module's view of a built-in from the value of every export, and node:http's WebSocket,
 * CloseEvent and MessageEvent are getters that load undici: about 50 ms of CPU the first time an ES module
 * imports node:http. The SDK imports it (`await import('node:http')`) for an `http:` endpoint only, and every
 * endpoint a function gets here is one (on AWS they are `https:`, and node:http is not loaded at all). So the
 * view is made once here without those three: `import { WebSocket } from 'node:http'` finds undefined here, as
 * nothing in the service does, while `require('node:http').WebSocket` works as on AWS. Every environment pays
 * about 7 ms for it, instead of about 50 at its first AWS call.
 */
async function importNodeHttpWithoutUndici() {
  const http = require('node:http');
  const lazy = ['WebSocket', 'CloseEvent', 'MessageEvent'].map((name) => [
    name,
    Object.getOwnPropertyDescriptor(http, name),
  ]);
  for (const [name] of lazy) delete http[name];
  try {
    await import('node:http');
  } finally {
    for (const [name, descriptor] of lazy) if (descriptor) Object.defineProperty(http, name, descriptor);
  }
}

await importNodeHttpWithoutUndici();
patchConsole();
markInvocationOutput('stdout');
markInvocationOutput('stderr');
try {
  handler = await loadHandler(process.env.LAMBDA_TASK_ROOT, process.env._HANDLER);
} catch (error) {
  logError('Uncaught Exception', error);
  crash(error, 129);
}
if (handler) {
  process.on('message', (message) => {
    if (message.type === 'invoke') invoke(message);
  });
  report({ type: 'ready', maxRssKiB: peakRssKiB() });
}
