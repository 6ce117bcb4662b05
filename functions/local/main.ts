import { resolve } from 'node:path';
import { ordersScenario } from '../../examples/orders/api/load-scenario.js';
import type { OutboxConfig } from '../../shared/config.js';
import { errorMessage } from '../../shared/error-message.js';
import { OutboxError } from '../../shared/errors.js';
import { LocalStackError } from '../../shared/local/errors.js';
import { renderBanner } from '../../shared/local/stack/banner.js';
import { LOCAL_USAGE, type LocalCommand, parseLocalArgs } from '../../shared/local/stack/cli-args.js';
import { type LiveRefresher, startLiveRefresher } from '../../shared/local/stack/live-refresher.js';
import { type Load, startLoad } from '../../shared/local/stack/load.js';
import { type LocalStack, startLocalStack } from '../../shared/local/stack/local-stack.js';
import { liveSnapshot } from '../../shared/local/stack/snapshot.js';
import { abortedStartExit, signalExitCode, startFailureMessage } from '../../shared/local/stack/start-exit.js';

/*
 * `npm start`: the whole system on this machine, from the same config the CDK stack deploys.
 * Every failure a user can cause ends in one line on stderr that says what to do.
 */
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const fail = (message: string, code = 1): never => {
  process.stderr.write(`npm start: ${message}\n`);
  process.exit(code);
};

function fix(error: unknown, command: Extract<LocalCommand, { kind: 'start' }>): string {
  const message = startFailureMessage(error);
  if (error instanceof OutboxError && error.code === 'PORT_IN_USE' && message.includes('example API')) {
    const next = command.apiPort === 65_535 ? 65_534 : command.apiPort + 1;
    return `${message} (e.g. npm start -- --port ${next}, or --port 0 for a free one)`;
  }
  return message;
}

let command: LocalCommand;
try {
  command = parseLocalArgs(process.argv.slice(2));
} catch (error) {
  const message = `${(error as Error).message} (see npm start -- --help)`;
  // A refusal whose heading names npm start ('Unknown npm start option: …') takes no prefix naming it again.
  if (message.split(':', 1)[0]?.includes('npm start')) {
    process.stderr.write(`${message}\n`);
    process.exit(2);
  }
  command = fail(message, 2);
}
if (command.kind === 'help') {
  process.stdout.write(`${LOCAL_USAGE}\n`);
  process.exit(0);
}

/*
 * The config, and the example app that imports it, are loaded now rather than imported: a config
 * edited into one defineConfig refuses ends in its one line, as a wrong flag does, not in a stack trace.
 */
const CONFIG_FILE = 'examples/orders/outbox.config.ts';
let example: { config: OutboxConfig; localApp: typeof import('../../examples/orders/local-app.js').localApp };
try {
  const [{ config: loaded }, { localApp: app }] = await Promise.all([
    import('../../examples/orders/outbox.config.js'),
    import('../../examples/orders/local-app.js'),
  ]);
  example = { config: loaded, localApp: app };
} catch (error) {
  const invalid = error instanceof OutboxError && error.code === 'INVALID_CONFIG';
  example = fail(`${CONFIG_FILE} ${invalid ? 'is not a valid config' : 'could not be loaded'}: ${errorMessage(error)}`, invalid ? 2 : 1);
}
const { config, localApp } = example;

// Created, when missing, only once the ports are known to be free: a refused start leaves nothing.
const persistDir = command.persistDir === undefined ? undefined : resolve(command.persistDir);

const reportError = (source: string, error: unknown) => process.stderr.write(`[${source}] ${errorMessage(error)}\n`);

/*
 * Signals are handled from before the start: a Ctrl-C while the stack starts aborts the start,
 * which stops what had started (DynamoDB Local's Java included, and the --persist folder's lock)
 * before the run ends; one after it stops the stack in order.
 */
let stack: LocalStack | undefined;
let load: Load | undefined;
let view: LiveRefresher | undefined;
const starting = new AbortController();

/** The longest a stop may take: the relay's timeout for the batch in flight, and some time for the rest. */
const STOP_DEADLINE_MS = (config.relay.timeoutSeconds + 15) * 1000;
/** A signal this soon after the first is the same Ctrl-C, delivered again (to the process group and by npm). */
const REPEAT_SIGNAL_MS = 1_000;
let stoppingSince: number | undefined;
const shutdown = async (signal: string) => {
  if (stoppingSince !== undefined) {
    if (Date.now() - stoppingSince < REPEAT_SIGNAL_MS) return;
    // A second Ctrl-C (or SIGTERM): leave now, with the signal's own code (130, 143); DynamoDB
    // Local's watchdog ends Java when this process goes.
    process.exit(signalExitCode(signal));
  }
  stoppingSince = Date.now();
  view?.stop();
  process.stdout.write(`\n${signal}: stopping…\n`);
  // Each part finishes what it has in flight, the relay at most its timeout; past that, something
  // hangs (DynamoDB Local no longer answering, say), and waiting on would never end the run.
  const deadline = setTimeout(() => {
    process.stderr.write(
      `npm start: still stopping after ${STOP_DEADLINE_MS / 1000} s; leaving now (DynamoDB Local ends with this process)\n`,
    );
    process.exit(1);
  }, STOP_DEADLINE_MS);
  // Still starting: the start stops what it had started, and ends with START_ABORTED (below).
  if (stack === undefined) {
    starting.abort(signal);
    return;
  }
  let failed: unknown;
  try {
    await load?.stop();
    await stack.stop();
  } catch (error) {
    // A part that fails to stop (a checkpoint file that cannot be written, say) is reported in one
    // line, and the run still ends in order, saying whether Java has gone.
    failed = error;
    process.stderr.write(`npm start: stopping failed: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  clearTimeout(deadline);
  let javaGone = true;
  try {
    process.kill(stack.dynamoDb.pid, 0);
    javaGone = false;
  } catch {
    javaGone = true;
  }
  process.stdout.write(
    javaGone
      ? `stopped; DynamoDB Local (java pid ${stack.dynamoDb.pid}) has ended\n`
      : `stopped; java pid ${stack.dynamoDb.pid} is still ending\n`,
  );
  process.exit(failed === undefined ? 0 : 1);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

try {
  stack = await startLocalStack({
    config,
    ...localApp((error) => reportError('example API', error)),
    apiPort: command.apiPort,
    dynamoDbPort: command.dynamoDbPort,
    emulatorPort: command.emulatorPort,
    ...(persistDir === undefined ? {} : { persistDir }),
    onError: reportError,
    signal: starting.signal,
  });
} catch (error) {
  if (error instanceof LocalStackError && error.code === 'START_ABORTED') {
    // Nothing left running, or the part that failed to stop named, and an exit code that tells them apart.
    const exit = abortedStartExit(error, String(starting.signal.reason));
    process[exit.stream].write(`${exit.line}\n`);
    process.exit(exit.code);
  }
  stack = fail(fix(error, command));
}

process.stdout.write(`${renderBanner(stack, config)}\n`);
const startedAt = Date.now();
const loadRate = command.loadRate;
// The stack serves the example API, so it has its address.
const apiUrl = stack.apiUrl as string;
if (loadRate !== undefined) {
  load = startLoad({ rate: loadRate, step: ordersScenario(apiUrl), counters: stack.stats.load });
}
view = startLiveRefresher({ snapshot: () => liveSnapshot(stack, startedAt, loadRate) });
