import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../shared/local/clients.js';
import { aRelayDeadLetter } from '../helpers/dead-letters.js';
import { anEnvelope } from '../helpers/envelopes.js';
import { queueDepth } from '../helpers/fauxqs.js';
import { Gate } from '../helpers/gate.js';
import { emulatorForFile } from '../helpers/local.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

const { server, clients } = await emulatorForFile();

const cliEnv = (extra: Record<string, string> = {}) => ({
  ...process.env,
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
  AWS_REGION: LOCAL_REGION,
  NODE_NO_WARNINGS: '1',
  ...extra,
});

/** Runs the CLI as a person would; asynchronously, so the in-process emulator keeps answering. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = cliEnv();
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'functions/cli/main.ts', ...args], { cwd: root, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

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
      "Invalid redrive option arguments: Unknown option '--too'; allowed: --queue-url URL, --to URL, --bucket NAME, --prefix P, --topic-arns JSON, --rate N, --max N, --endpoint URL, --region REGION, --dry-run, --help\n",
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
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'functions/cli/main.ts', ...args], {
    cwd: root,
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
    expect(result.stderr).toContain('--topic-arns: topic "payments" has "nope"; allowed: an "arn:…" topic ARN');
    expect(server.inspectQueue('cli-bad-arn-dlq')?.messages.ready.map((m) => m.approximateReceiveCount)).toEqual([0]);
  }, 120_000);
});
