import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defineConfig, serializeConfig } from '../../shared/config.js';
import { ConfigFileError } from '../../shared/config-file.js';
import { EnvironmentError } from '../../shared/errors.js';
import { parseRedriveArgs, REDRIVE_USAGE } from '../../shared/redrive/cli-args.js';
import { CLI_USAGE, parseCommandLine, usageFor } from '../../shared/redrive/cli-command.js';
import { withRedriveConfig } from '../../shared/redrive/cli-config.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';

const DLQ = 'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-dlq';
const ARNS = '{"payments":"arn:aws:sns:eu-west-1:123456789012:payments"}';
const config = defineConfig({ source: 'urn:test:cli', topics: [{ name: 'payments' }], routes: { payment: 'payments' } });
const other = defineConfig({ source: 'urn:test:other', topics: [{ name: 'payments' }], routes: { refund: 'payments' } });

const dir = mkdtempSync(join(tmpdir(), 'redrive-config-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

/** The message of what `promise` was refused with, which must be a RedriveOptionsError. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RedriveOptionsError);
  return (error as Error).message;
}

const run = (args: string[]) => {
  const command = parseRedriveArgs(['redrive', ...args, '--topic-arns', ARNS], {});
  if (command.kind === 'help') throw new Error('not a run');
  return command;
};

describe('withRedriveConfig', () => {
  const env = { OUTBOX_CONFIG: serializeConfig(other) };

  it('takes --config over $OUTBOX_CONFIG, and $OUTBOX_CONFIG when --config is not given', async () => {
    const json = file('chosen.json', serializeConfig(config));
    expect(await withRedriveConfig(run(['on-failure', '--bucket', 'failures', '--config', json]), env)).toMatchObject({ config });
    expect(await withRedriveConfig(run(['on-failure', '--bucket', 'failures']), env)).toMatchObject({ config: other });
    expect(await withRedriveConfig(run(['relay-dlq', '--queue-url', DLQ]), env)).toMatchObject({ config: other });
  });

  it('runs relay-dlq without a config, and queue-dlq never reads one', async () => {
    expect(await withRedriveConfig(run(['relay-dlq', '--queue-url', DLQ]), {})).not.toHaveProperty('config');
    const queueDlq = parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', DLQ, '--to', `${DLQ}-source`], {});
    if (queueDlq.kind === 'help') throw new Error('not a run');
    expect(await withRedriveConfig(queueDlq, { OUTBOX_CONFIG: '{' })).toEqual(queueDlq);
  });

  it('refuses a config file the loader refuses as its --config option, in the same words, before anything is read', async () => {
    const yaml = file('outbox.yaml', 'source: urn:a');
    const json = file('unrouted.json', '{"source":"urn:a","topics":[{"name":"payments"}],"routes":{"payment":"nowhere"}}');
    for (const kind of [
      ['on-failure', '--bucket', 'failures'],
      ['relay-dlq', '--queue-url', DLQ],
    ]) {
      const error = await withRedriveConfig(run([...kind, '--config', yaml]), {}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedriveOptionsError);
      expect(error).toMatchObject({ field: '--config', command: 'redrive' });
      expect((error as Error).message).toBe(
        `Invalid redrive option --config: "${yaml}" has the extension ".yaml"; allowed: a .json file holding the outbox config as JSON (as $OUTBOX_CONFIG holds it), or a module exporting \`config\` (.js, .mjs; .ts, .mts under a TypeScript loader such as tsx)`,
      );
      expect((error as Error).cause).toBeInstanceOf(ConfigFileError);
    }
    expect(await refusal(withRedriveConfig(run(['on-failure', '--bucket', 'failures', '--config', json]), {}))).toBe(
      `Invalid redrive option --config: "${json}" holds an invalid outbox config (at routes.payment: routes to unknown topic "nowhere"; allowed: "payments")`,
    );
  });

  it('rejects on-failure without a config, naming both ways to give one', async () => {
    expect(await refusal(withRedriveConfig(run(['on-failure', '--bucket', 'failures']), { OUTBOX_CONFIG: '' }))).toBe(
      'Invalid redrive option --config: is required for on-failure, whose events the outbox config routes, none given (nor OUTBOX_CONFIG); allowed: --config FILE (a .json file of the config, or a module exporting `config`) or the config as JSON in OUTBOX_CONFIG, as the relay holds it',
    );
  });

  it('rejects an invalid $OUTBOX_CONFIG for relay-dlq too, though only dead letters without a topic need it', async () => {
    const error = await withRedriveConfig(run(['relay-dlq', '--queue-url', DLQ]), { OUTBOX_CONFIG: '{"source":"urn:a"}' }).catch((e) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect(error.message).toMatch(
      /^Environment variable OUTBOX_CONFIG: holds an invalid outbox config \(at topics: .*\); allowed: the outbox config as JSON/,
    );
  });

  it('rejects --config where no config is used, and an empty one', () => {
    expect(() => parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', DLQ, '--to', DLQ, '--config', 'c.json'], {})).toThrow(
      'Invalid redrive option --config: does not apply to queue-dlq; allowed: --queue-url, --to',
    );
    expect(() => run(['relay-dlq', '--queue-url', DLQ, '--config', ''])).toThrow(
      /^Invalid redrive option --config: got ""; allowed: a \.json file/,
    );
  });
});

describe('parseCommandLine', () => {
  it('answers --help without a command with the list of commands, and redrive --help with the redrive usage', () => {
    expect(parseCommandLine(['--help'], {})).toEqual({ kind: 'usage' });
    expect(parseCommandLine(['-h'], {})).toEqual({ kind: 'usage' });
    expect(parseCommandLine(['redrive', '--help'], {})).toEqual({ kind: 'help' });
    expect(parseCommandLine(['redrive', 'relay-dlq', '-h'], {})).toEqual({ kind: 'help' });
    expect(CLI_USAGE).toMatch(/^Usage: dynamodb-outbox <command> \[options\]\n\nCommands:\n {2}redrive <kind> /);
    expect(REDRIVE_USAGE).toMatch(/^Usage: dynamodb-outbox redrive <kind> \[options\]/);
  });

  it('rejects no command and an unknown one, with the list of commands as the usage to show', () => {
    for (const [argv, given] of [
      [[], 'none given'],
      [['teleport'], 'got "teleport"'],
      [['--region', 'eu-west-1', 'teleport', 'relay-dlq'], 'got "teleport"'],
    ] as const) {
      const error = (() => {
        try {
          parseCommandLine(argv, {});
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(RedriveOptionsError);
      expect((error as Error).message).toBe(`Invalid command: ${given}; allowed: redrive, replay, dlq, catalog`);
      expect(usageFor(error)).toBe(CLI_USAGE);
    }
  });

  it('finds the command behind flags and their values, and shows the redrive usage for its refusals', () => {
    expect(parseCommandLine(['--region', 'eu-west-1', 'redrive', 'relay-dlq', '--queue-url', DLQ, '--topic-arns', ARNS], {})).toMatchObject(
      {
        kind: 'relay-dlq',
        region: 'eu-west-1',
      },
    );
    const error = (() => {
      try {
        parseCommandLine(['redrive', 'relay-dlq'], {});
      } catch (e) {
        return e;
      }
    })();
    expect((error as Error).message).toBe(
      'Invalid redrive option --queue-url: is required for relay-dlq, none given; allowed: an SQS queue URL, https://sqs.<region>.amazonaws.com/<12-digit account>/<queue name> (http://<host>:<port>/<account>/<queue name> for a local endpoint)',
    );
    expect(usageFor(error)).toBe(REDRIVE_USAGE);
  });
});
