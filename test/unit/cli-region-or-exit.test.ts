import { describe, expect, it } from 'vitest';
import { ReplayOptionsError } from '../../shared/archive/replay-errors.js';
import { regionOrExit } from '../../shared/cli-region.js';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { parseDlqArgs } from '../../shared/redrive/dlq-cli.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';

const EU = 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq';

/** A stderr that keeps what is written to it. */
function stderr(): { written: string[]; write(text: string): boolean } {
  const written: string[] = [];
  return { written, write: (text: string) => written.push(text) > 0 };
}

describe('regionOrExit', () => {
  it('gives the Region resolved, writing nothing', async () => {
    const err = stderr();
    await expect(regionOrExit(Promise.resolve('eu-west-1'), RedriveOptionsError, err)).resolves.toEqual({ region: 'eu-west-1' });
    await expect(regionOrExit(Promise.resolve(undefined), RedriveOptionsError, err)).resolves.toEqual({ region: undefined });
    expect(err.written).toEqual([]);
  });

  it("writes the command's refusal and gives exit status 2", async () => {
    const err = stderr();
    const refused = new ReplayOptionsError('--region', 'got "us-east-1"; allowed: eu-west-1');
    await expect(regionOrExit(Promise.reject(refused), ReplayOptionsError, err)).resolves.toEqual({ exitCode: 2 });
    expect(err.written).toEqual([`${refused.message}\n`]);
  });

  it("throws on what is not the command's refusal, writing nothing", async () => {
    const err = stderr();
    const other = new RedriveOptionsError('--region', 'got "us-east-1"; allowed: eu-west-1');
    await expect(regionOrExit(Promise.reject(other), ReplayOptionsError, err)).rejects.toBe(other);
    const failure = new Error('profile unreadable');
    await expect(regionOrExit(Promise.reject(failure), RedriveOptionsError, err)).rejects.toBe(failure);
    expect(err.written).toEqual([]);
  });
});

describe('--region of redrive and dlq summarize', () => {
  it('is refused, naming the command, when it is no Region name', () => {
    expect(() => parseRedriveArgs(['redrive', 'relay-dlq', '--queue-url', EU, '--topic-arns', '{}', '--region', 'EU West'], {})).toThrow(
      'Invalid redrive option --region: got "EU West"; allowed: an AWS region name, e.g. eu-west-1',
    );
    expect(() => parseDlqArgs(['dlq', 'summarize', '--queue-url', EU, '--region', 'EU West'])).toThrow(
      'Invalid dlq summarize option --region: got "EU West"; allowed: an AWS region name, e.g. eu-west-1',
    );
  });

  it('is taken as given when it is one', () => {
    expect(parseDlqArgs(['dlq', 'summarize', '--queue-url', EU, '--region', 'eu-west-1'])).toMatchObject({ region: 'eu-west-1' });
    expect(parseRedriveArgs(['redrive', 'queue-dlq', '--queue-url', EU, '--to', EU, '--region', 'eu-west-1'], {})).toMatchObject({
      region: 'eu-west-1',
    });
  });
});
