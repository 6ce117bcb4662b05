import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { config as exampleConfig } from '../../examples/orders/outbox.config.js';
import { serializeConfig } from '../../shared/config.js';
import { CLI_USAGE } from '../../shared/redrive/cli-command.js';
import { CLI_ARGS, cliEnv, compiledCliArgs, REPOSITORY_ROOT, runCli } from '../helpers/cli.js';
import { aRelayDeadLetter } from '../helpers/dead-letters.js';
import { anEnvelope } from '../helpers/envelopes.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { Gate } from '../helpers/gate.js';
import { emulatorForFile } from '../helpers/local.js';
import { waitFor } from '../helpers/wait.js';

const { server, clients } = await emulatorForFile();

// A config in the environment the tests run in would stand in for the one each test gives, or leaves out.

// The compiled bin, as an installed package runs it; only the TypeScript config needs the source under tsx.
const compiled = compiledCliArgs();
const cli = (args: readonly string[], env: Record<string, string> = {}) => runCli(args, env, compiled);

describe('redrive CLI', () => {
  it('reports a dry run, then moves a subscriber DLQ back with counts before and after', async () => {
    const source = server.createQueue('cli-source');
    const dlq = server.createQueue('cli-source-dlq');
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: dlq.queueUrl,
        Entries: Array.from({ length: 7 }, (_, i) => ({ Id: String(i), MessageBody: anEnvelope({ aggregateId: `cli-${i}` }).body })),
      }),
    );
    const args = ['redrive', 'queue-dlq', '--queue-url', dlq.queueUrl, '--to', source.queueUrl, '--endpoint', server.address];

    const dry = await cli([...args, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('DRY RUN');
    expect(dry.stdout).toMatch(/would move\s+7/);
    expect(queueDepth(server, 'cli-source-dlq')).toBe(7);

    const real = await cli([...args, '--rate', '500']);
    expect(real.code).toBe(0);
    expect(real.stdout).toMatch(/before:\s+7/);
    expect(real.stdout).toMatch(/moved\s+7/);
    expect(real.stdout).toMatch(/after:\s+0/);
    expect(queueDepth(server, 'cli-source-dlq')).toBe(0);
    expect(queueDepth(server, 'cli-source')).toBe(7);
  }, 120_000);

  it('rejects an unknown flag with exit status 2, naming it, and touches nothing', async () => {
    const dlq = server.createQueue('cli-typo-dlq');
    await clients.sqs.send(new SendMessageBatchCommand({ QueueUrl: dlq.queueUrl, Entries: [{ Id: '0', MessageBody: 'x' }] }));

    const result = await cli(['redrive', 'queue-dlq', '--queue-url', dlq.queueUrl, '--too', 'x', '--endpoint', server.address]);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'Unknown redrive option: got "--too"; allowed: --queue-url URL, --to URL, --bucket NAME, --prefix P, --topic-arns JSON, --config FILE, --relay-dlq-url URL, --rate N, --max N, --endpoint URL, --streams-endpoint URL, --region REGION, --reason R, --type T, --aggregate-type A, --aggregate TYPE:ID, --since ISO, --until ISO, --dry-run, --help\n',
    );
    expect(result.stderr).not.toContain('positional argument');
    expect(queueDepth(server, 'cli-typo-dlq')).toBe(1);
  }, 120_000);

  it('names the flag typed, --to, when the target is the DLQ itself, as a usage error (exit 2) that read nothing', async () => {
    const dlq = server.createQueue('cli-self-dlq');
    await clients.sqs.send(new SendMessageBatchCommand({ QueueUrl: dlq.queueUrl, Entries: [{ Id: '0', MessageBody: 'x' }] }));

    const result = await cli(['redrive', 'queue-dlq', '--queue-url', dlq.queueUrl, '--to', dlq.queueUrl, '--endpoint', server.address]);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Invalid redrive option --to: is the DLQ itself \(.*\); allowed: the source queue the DLQ serves\n$/);
    expect(server.inspectQueue('cli-self-dlq')?.messages.ready.map((m) => m.approximateReceiveCount)).toEqual([0]);
  }, 120_000);
});

/** The CLI started in the background, its output collected, to be signalled while it runs. */
function startCli(args: string[], env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, [...compiled, ...args], {
    cwd: REPOSITORY_ROOT,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (d) => {
    output.stdout += d;
  });
  child.stderr?.on('data', (d) => {
    output.stderr += d;
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  return { child, output, exited };
}

/** A relay DLQ of 30 dead letters and a topic that delivers to a queue, for runs to interrupt. */
async function relayDlqOf30(name: string) {
  const { topicArn } = server.createTopic(`${name}-topic`);
  server.createQueue(`${name}-view`);
  server.subscribe({ topic: `${name}-topic`, queue: `${name}-view`, attributes: { RawMessageDelivery: 'true' } });
  const dlq = server.createQueue(`${name}-dlq`);
  for (let i = 0; i < 30; i += 10) {
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: dlq.queueUrl,
        Entries: Array.from({ length: 10 }, (_, j) => ({ Id: String(j), MessageBody: aRelayDeadLetter({ topic: 'payments' }).body })),
      }),
    );
  }
  return { queueUrl: dlq.queueUrl, env: { OUTBOX_TOPIC_ARNS: JSON.stringify({ payments: topicArn }) } };
}

describe('redrive CLI interrupted', () => {
  it('on Ctrl-C stops after the current batch, releases what it holds, prints a partial summary and exits 130', async () => {
    const { queueUrl, env } = await relayDlqOf30('sigint');
    // At 2 events per second the second batch waits 5 s for its turn: the signal comes while it waits.
    const run = startCli(['redrive', 'relay-dlq', '--queue-url', queueUrl, '--endpoint', server.address, '--rate', '2'], env);
    await waitFor(() => queueDepth(server, 'sigint-view') === 10, { timeoutMs: 30_000, what: 'the first batch to be republished' });

    run.child.kill('SIGINT');

    expect(await run.exited).toBe(130);
    expect(run.output.stderr).toContain('SIGINT: stopping after the current batch');
    expect(run.output.stdout).toMatch(/status:\s+interrupted/);
    expect(run.output.stdout).toMatch(/moved\s+10 \(10 events\)/);
    expect(run.output.stdout).toMatch(/after:\s+20/);
    expect(server.inspectQueue('sigint-dlq')?.messages.inflight).toHaveLength(0);
    expect(queueDepth(server, 'sigint-dlq') + queueDepth(server, 'sigint-view')).toBe(30);
  }, 120_000);

  it('exits at once on a second signal, while the first is still being handled', async () => {
    const { queueUrl, env } = await relayDlqOf30('second-signal');
    // A proxy in front of the emulator that can hold calls back: the run is then stuck in a call when the second signal comes.
    const gate = new Gate();
    let held = 0;
    const forward = async (request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<
        string,
        string
      >;
      const upstream = await fetch(`${server.address}${request.url}`, {
        method: request.method ?? 'POST',
        headers,
        body: Buffer.concat(chunks),
      });
      response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/xml' });
      response.end(Buffer.from(await upstream.arrayBuffer()));
    };
    const proxy = createServer(async (request, response) => {
      const closed = gate.passed();
      if (closed !== undefined) {
        held++;
        await closed;
      }
      // A call held back until its caller exited has no one to answer.
      await forward(request, response).catch(() => response.destroy());
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    afterAll(() => {
      gate.open();
      proxy.close();
    });
    const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const run = startCli(['redrive', 'relay-dlq', '--queue-url', queueUrl, '--endpoint', endpoint, '--rate', '2'], env);
    await waitFor(() => queueDepth(server, 'second-signal-view') === 10, { timeoutMs: 30_000, what: 'the first batch to be republished' });

    gate.close();
    run.child.kill('SIGINT');
    await waitFor(() => held > 0, { timeoutMs: 30_000, what: 'the interrupted run to make its next call' });
    run.child.kill('SIGTERM');

    expect(await run.exited).toBe(130);
    expect(run.output.stderr).toContain('SIGTERM after SIGINT: exiting at once');
    expect(run.output.stdout).not.toContain('status:');
    gate.open();
  }, 120_000);
});

describe('redrive CLI input', () => {
  it('refuses a topic ARN that is no ARN with exit status 2, before receiving anything', async () => {
    const dlq = server.createQueue('cli-bad-arn-dlq');
    await clients.sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: dlq.queueUrl,
        Entries: [{ Id: '0', MessageBody: aRelayDeadLetter({ topic: 'payments' }).body }],
      }),
    );

    const result = await cli([
      'redrive',
      'relay-dlq',
      '--queue-url',
      dlq.queueUrl,
      '--topic-arns',
      '{"payments":"nope"}',
      '--endpoint',
      server.address,
    ]);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--topic-arns: topic "payments" has "nope"; allowed: an SNS topic ARN (arn:<partition>:sns:<region>:<12-digit account>:<topic name>)',
    );
    expect(server.inspectQueue('cli-bad-arn-dlq')?.messages.ready.map((m) => m.approximateReceiveCount)).toEqual([0]);
  }, 120_000);
});

describe('dynamodb-outbox usage', () => {
  it('prints the commands on --help and exits 0', async () => {
    const result = await cli(['--help']);

    expect(result).toEqual({ code: 0, stdout: `${CLI_USAGE}\n`, stderr: '' });
    expect(result.stdout).toContain('\n  redrive <kind>   ');
  }, 120_000);

  it('rejects no command and an unknown one with exit status 2 and the commands', async () => {
    expect(await cli([])).toEqual({
      code: 2,
      stdout: '',
      stderr: `Invalid command: none given; allowed: redrive, replay, dlq, catalog\n\n${CLI_USAGE}\n`,
    });
    expect(await cli(['teleport', '--queue-url', 'https://sqs.eu-west-1.amazonaws.com/123456789012/q'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `Invalid command: got "teleport"; allowed: redrive, replay, dlq, catalog\n\n${CLI_USAGE}\n`,
    });
  }, 120_000);

  it('prints the redrive usage, as dynamodb-outbox redrive, on redrive --help', async () => {
    const result = await cli(['redrive', '--help']);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: dynamodb-outbox redrive <kind> \[options\]\n/);
    expect(result.stdout).toContain('--config FILE');
  }, 120_000);
});

describe('redrive CLI config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'redrive-cli-config-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const { topicArn } = server.createTopic('cli-config-payments');
  server.createQueue('cli-config-view');
  server.subscribe({ topic: 'cli-config-payments', queue: 'cli-config-view', attributes: { RawMessageDelivery: 'true' } });
  const topicArns = JSON.stringify({ payments: topicArn });
  // On-failure needs an ARN for every topic the config routes to: the example's orders.fifo too (nothing is published to it here).
  const onFailureArns = JSON.stringify({ payments: topicArn, 'orders.fifo': topicArn.replace(/[^:]+$/, 'cli-config-orders.fifo') });

  it('routes a dead letter written without a topic by the config from --config or $OUTBOX_CONFIG, and skips it without one (exit status 3)', async () => {
    const dlq = server.createQueue('cli-config-dlq');
    const send = () =>
      clients.sqs.send(
        new SendMessageBatchCommand({ QueueUrl: dlq.queueUrl, Entries: [{ Id: '0', MessageBody: aRelayDeadLetter({}).body }] }),
      );
    const args = ['redrive', 'relay-dlq', '--queue-url', dlq.queueUrl, '--topic-arns', topicArns, '--endpoint', server.address];
    await send();

    // Skipped, not failed: it stays, and running the same command again would not move it.
    const dryWithout = await cli([...args, '--dry-run']);
    expect(dryWithout.code).toBe(3);
    expect(dryWithout.stdout).toMatch(/skipped:\s+1/);
    const without = await cli(args);
    expect(without.code).toBe(3);
    expect(without.stdout).toMatch(/skipped:\s+1/);
    expect(without.stdout).toContain('UNKNOWN_ROUTE');
    expect(queueDepth(server, 'cli-config-dlq')).toBe(1);
    // Left untouched because a filter does not match it: nothing was asked of it, so exit status 0.
    const filtered = await cli([...args, '--type', 'no.such.type']);
    expect(filtered.code).toBe(0);
    expect(filtered.stdout).toMatch(/unmatched:\s+1 \(left in the source, untouched\)/);
    expect(filtered.stdout).toMatch(/skipped:\s+0/);

    const fromEnv = await cli(args, { OUTBOX_CONFIG: serializeConfig(exampleConfig) });
    expect(fromEnv.code).toBe(0);
    expect(fromEnv.stdout).toMatch(/moved\s+1 \(1 event\)/);
    expect(queueDepth(server, 'cli-config-view')).toBe(1);

    await send();
    // A .ts config loads under a TypeScript loader only: the CLI from its source under tsx.
    const fromModule = await runCli([...args, '--config', 'examples/orders/outbox.config.ts'], {}, CLI_ARGS);
    expect(fromModule.code).toBe(0);
    expect(fromModule.stdout).toMatch(/moved\s+1 \(1 event\)/);

    await send();
    // --config wins over $OUTBOX_CONFIG, which here routes nothing.
    const empty = serializeConfig({ ...exampleConfig, routes: {} });
    const fromJson = await cli([...args, '--config', file('outbox.config.json', serializeConfig(exampleConfig))], { OUTBOX_CONFIG: empty });
    expect(fromJson.code).toBe(0);
    expect(fromJson.stdout).toMatch(/moved\s+1 \(1 event\)/);
    expect(queueDepth(server, 'cli-config-view')).toBe(3);
    expect(queueDepth(server, 'cli-config-dlq')).toBe(0);
  }, 120_000);

  const refusals: readonly {
    what: string;
    config?: (dir: string) => string;
    env?: Record<string, string>;
    stderr: (file: string) => string;
  }[] = [
    {
      what: 'no config at all',
      stderr: () =>
        'Invalid redrive option --config: is required for on-failure, whose events the outbox config routes, none given (nor OUTBOX_CONFIG); allowed: --config FILE (a .json file of the config, or a module exporting `config`) or the config as JSON in OUTBOX_CONFIG, as the relay holds it\n',
    },
    {
      what: 'a file that does not exist',
      config: () => join(dir, 'missing.json'),
      stderr: (path) =>
        `Invalid redrive option --config: "${path}" does not exist; allowed: the path of an existing file, absolute or relative to the working directory: a .json file holding the outbox config as JSON (as $OUTBOX_CONFIG holds it), or a module exporting \`config\` (.js, .mjs; .ts, .mts under a TypeScript loader such as tsx)\n`,
    },
    {
      what: 'a .json file that is not JSON',
      config: () => file('broken.json', '{"source":'),
      stderr: (path) => `Invalid redrive option --config: "${path}" is not JSON (`,
    },
    {
      what: 'a module without a config export',
      config: () => file('default.mjs', `export default ${serializeConfig(exampleConfig)};`),
      stderr: (path) =>
        `Invalid redrive option --config: "${path}" has no \`config\` export (it exports default); allowed: a module with \`export const config = defineConfig({ … })\`\n`,
    },
    {
      what: 'a file holding an invalid config',
      config: () =>
        file('unrouted.json', JSON.stringify({ source: 'urn:a', topics: [{ name: 'payments' }], routes: { payment: 'nowhere' } })),
      stderr: (path) =>
        `Invalid redrive option --config: "${path}" holds an invalid outbox config (at routes.payment: routes to unknown topic "nowhere"; allowed: "payments")\n`,
    },
    {
      what: 'an invalid $OUTBOX_CONFIG',
      env: { OUTBOX_CONFIG: '{"source":"urn:a"}' },
      stderr: () => 'Environment variable OUTBOX_CONFIG: holds an invalid outbox config (at topics: ',
    },
  ];

  let refused = 0;
  it.each(refusals)(
    'rejects on-failure with $what with exit status 2, before reading anything',
    async ({ config, env, stderr }) => {
      const name = `cli-refused-${refused++}`;
      const queue = server.createQueue(name);
      await clients.sqs.send(new SendMessageBatchCommand({ QueueUrl: queue.queueUrl, Entries: [{ Id: '0', MessageBody: 'x' }] }));
      const path = config?.(dir);

      const result = await cli(
        [
          'redrive',
          'on-failure',
          '--queue-url',
          queue.queueUrl,
          '--topic-arns',
          topicArns,
          '--endpoint',
          server.address,
          ...(path === undefined ? [] : ['--config', path]),
        ],
        env,
      );

      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      const expected = stderr(path ?? '');
      expect(result.stderr.slice(0, expected.length)).toBe(expected);
      expect(server.inspectQueue(name)?.messages.ready.map((m) => m.approximateReceiveCount)).toEqual([0]);
    },
    120_000,
  );

  it('runs on-failure with a valid --config, reading the queue it would refuse to read without one', async () => {
    const queue = server.createQueue('cli-config-on-failure');
    await clients.sqs.send(new SendMessageBatchCommand({ QueueUrl: queue.queueUrl, Entries: [{ Id: '0', MessageBody: 'not a record' }] }));

    const result = await cli([
      'redrive',
      'on-failure',
      '--queue-url',
      queue.queueUrl,
      '--topic-arns',
      onFailureArns,
      '--endpoint',
      server.address,
      '--config',
      file('valid.json', serializeConfig(exampleConfig)),
    ]);

    // The record it could not read is skipped and stays: exit status 3, not 0.
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/processed:\s+1/);
    expect(result.stdout).toMatch(/skipped:\s+1/);
  }, 120_000);

  it('takes the relay DLQ of on-failure from --relay-dlq-url or $OUTBOX_RELAY_DLQ_URL, refusing a FIFO queue or no URL with exit status 2 before reading', async () => {
    const queue = server.createQueue('cli-relay-dlq-url-failures');
    await clients.sqs.send(new SendMessageBatchCommand({ QueueUrl: queue.queueUrl, Entries: [{ Id: '0', MessageBody: 'not a record' }] }));
    const relayDlq = server.createQueue('cli-relay-dlq-url-dlq');
    const config = file('relay-dlq-url.json', serializeConfig(exampleConfig));
    const args = [
      'redrive',
      'on-failure',
      '--queue-url',
      queue.queueUrl,
      '--topic-arns',
      onFailureArns,
      '--endpoint',
      server.address,
      '--config',
      config,
    ];
    const fifo = `${relayDlq.queueUrl}.fifo`;

    const refusedFifo = await cli([...args, '--relay-dlq-url', fifo]);
    expect(refusedFifo.code).toBe(2);
    expect(refusedFifo.stderr).toContain(
      `Invalid redrive option --relay-dlq-url: got ${JSON.stringify(fifo)}, which names a FIFO queue (".fifo"), which refuses every dead letter: a dead letter carries no message group; allowed: the URL of a standard SQS queue (not FIFO)`,
    );
    const refusedEnv = await cli(args, { OUTBOX_RELAY_DLQ_URL: 'relay-dlq' });
    expect(refusedEnv.code).toBe(2);
    expect(refusedEnv.stderr).toContain(
      'Invalid redrive option --relay-dlq-url: got "relay-dlq" (from OUTBOX_RELAY_DLQ_URL), which is not an http:// or https:// URL with a host; allowed: the URL of a standard SQS queue (not FIFO)',
    );
    const elsewhere = await cli([
      'redrive',
      'relay-dlq',
      '--queue-url',
      queue.queueUrl,
      '--topic-arns',
      topicArns,
      '--relay-dlq-url',
      relayDlq.queueUrl,
    ]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('--relay-dlq-url: does not apply to relay-dlq');
    expect(queueDepth(server, 'cli-relay-dlq-url-failures')).toBe(1);

    // A standard queue's URL is taken: the run reads the record (not one, so skipped: exit status 3).
    const taken = await cli(args, { OUTBOX_RELAY_DLQ_URL: relayDlq.queueUrl });
    expect(taken.code).toBe(3);
    expect(taken.stdout).toMatch(/processed:\s+1/);
  }, 120_000);

  it('refuses on-failure topic ARNs without a topic the config routes to with exit status 2, before reading, relay DLQ or not', async () => {
    const queue = server.createQueue('cli-missing-arn-failures');
    await clients.sqs.send(new SendMessageBatchCommand({ QueueUrl: queue.queueUrl, Entries: [{ Id: '0', MessageBody: 'not a record' }] }));
    const relayDlq = server.createQueue('cli-missing-arn-dlq');
    const args = ['redrive', 'on-failure', '--queue-url', queue.queueUrl, '--topic-arns', topicArns, '--endpoint', server.address];
    const config = ['--config', file('missing-arn.json', serializeConfig(exampleConfig))];

    for (const dlq of [[], ['--relay-dlq-url', relayDlq.queueUrl]]) {
      const refused = await cli([...args, ...config, ...dlq]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(
        `Invalid redrive option --topic-arns: no ARN for topic "orders.fifo" (route of aggregate type "order"); got ARNs for "payments"; allowed: an ARN for every topic the config routes to ("orders.fifo", "payments"), as the relay has them in OUTBOX_TOPIC_ARNS\n`,
      );
    }
    // Never received: the record is as it was sent.
    expect(server.inspectQueue('cli-missing-arn-failures')?.messages.ready.map((m) => m.approximateReceiveCount)).toEqual([0]);
  }, 120_000);
});
