import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_ARGS, runCli } from '../helpers/cli.js';

/**
 * A rejection need not be an Error: each command of `dynamodb-outbox` ends a run that met `null`,
 * `undefined`, a string or a number with its one error line and its documented exit status,
 * never a TypeError from reading `.message`.
 */

const dir = mkdtempSync(join(tmpdir(), 'cli-thrown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const [importFlag, loader, main] = CLI_ARGS as [string, string, string];
const REJECTING = [importFlag, loader, importFlag, './test/helpers/rejecting-sends.ts', main];
const QUEUE = 'http://localhost:1/000000000000/dlq';
const TOPICS = JSON.stringify({ orders: 'arn:aws:sns:us-east-1:000000000000:orders' });

/** The CLI with every SQS and S3 call rejecting with `thrown` (as JSON, or `undefined`). */
const rejecting = (thrown: string, ...args: string[]) => runCli(args, { OUTBOX_CONFIG: '', REJECT_WITH: thrown }, REJECTING);

const VALUES = [
  { thrown: 'null', shown: 'no error message; the value thrown was null' },
  { thrown: 'undefined', shown: 'no error message; the value thrown was undefined' },
  { thrown: '"queue went away"', shown: 'queue went away' },
  { thrown: '42', shown: 'no error message; the value thrown was 42' },
];

describe('dynamodb-outbox with a rejection that is not an Error', { timeout: 120_000 }, () => {
  it.each(VALUES)('redrive relay-dlq stops with status 1 and one line on $thrown', async ({ thrown, shown }) => {
    const { code, stderr } = await rejecting(thrown, 'redrive', 'relay-dlq', '--queue-url', QUEUE, '--topic-arns', TOPICS);
    expect(stderr.trim()).toBe(`Redrive stopped: ${shown}`);
    expect(code).toBe(1);
  });

  it('redrive queue-dlq stops with status 1 and one line', async () => {
    const { code, stderr } = await rejecting('null', 'redrive', 'queue-dlq', '--queue-url', QUEUE, '--to', `${QUEUE}-source`);
    expect(stderr.trim()).toBe('Redrive stopped: no error message; the value thrown was null');
    expect(code).toBe(1);
  });

  it('dlq summarize stops with status 1 and one line', async () => {
    const { code, stderr } = await rejecting('null', 'dlq', 'summarize', '--queue-url', QUEUE);
    expect(stderr.trim()).toBe('dlq summarize stopped: no error message; the value thrown was null');
    expect(code).toBe(1);
  });

  it('replay stops with status 1, its error line naming no TypeError', async () => {
    const args = ['replay', '--archive-bucket', 'archive', '--from', '2026-01-01', '--to', '2026-01-02', '--to-queue', QUEUE];
    const { code, stderr } = await rejecting('null', ...args, '--dry-run');
    expect(stderr).toMatch(
      /^Replay stopped \[REPLAY_STOPPED\]: replay stopped after 0 events sent: no error message; the value thrown was null$/m,
    );
    expect(stderr).not.toContain('TypeError');
    expect(code).toBe(1);
  });

  it.each([
    { thrown: 'null', shown: 'no error message; the value thrown was null' },
    { thrown: '"not ready"', shown: 'not ready' },
  ])('a --config module that throws $thrown is a usage error (status 2) of catalog and redrive', async ({ thrown, shown }) => {
    const config = join(dir, `throws-${thrown.length}.mjs`);
    writeFileSync(config, `throw ${thrown};\n`);
    const catalog = await runCli(['catalog', '--config', config], { OUTBOX_CONFIG: '' });
    expect(catalog.stderr).toContain(`could not be loaded: ${shown}`);
    expect(catalog.stderr).not.toContain('TypeError');
    expect(catalog.code).toBe(2);
    const redrive = await runCli(['redrive', 'on-failure', '--queue-url', QUEUE, '--topic-arns', TOPICS, '--config', config], {
      OUTBOX_CONFIG: '',
    });
    expect(redrive.stderr).toContain(`could not be loaded: ${shown}`);
    expect(redrive.stderr).not.toContain('TypeError');
    expect(redrive.code).toBe(2);
  });
});
