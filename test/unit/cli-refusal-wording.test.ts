import { describe, expect, it } from 'vitest';
import { ReplayOptionsError } from '../../shared/archive/replay-errors.js';
import { parseRedriveArgs } from '../../shared/redrive/cli-args.js';
import { CLI_USAGE, parseCommandLine, usageFor } from '../../shared/redrive/cli-command.js';
import { DLQ_USAGE } from '../../shared/redrive/dlq-cli.js';
import { RedriveOptionsError } from '../../shared/redrive/errors.js';

/*
 * A refusal names what was wrong as the person typed it: a word of the command line that is no
 * option (the command, the dlq subcommand, the redrive kind) is not called an option, a word not
 * given is not shown as "" (an empty word typed), and a rate's allowed values are the rule itself.
 */

function refusal(parse: () => unknown): Error {
  try {
    parse();
  } catch (error) {
    if (error instanceof RedriveOptionsError || error instanceof ReplayOptionsError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('the words before the options', () => {
  it.each([
    [[], 'Invalid command: none given; allowed: redrive, replay, dlq, catalog'],
    [['teleport'], 'Invalid command: got "teleport"; allowed: redrive, replay, dlq, catalog'],
    [['--region', 'eu-west-1', 'teleport'], 'Invalid command: got "teleport"; allowed: redrive, replay, dlq, catalog'],
  ])('%j: the command, and the commands allowed', (argv, message) => {
    const error = refusal(() => parseCommandLine(argv, {}));
    expect(error.message).toBe(message);
    expect(usageFor(error, argv)).toBe(CLI_USAGE);
  });

  it.each([
    [['dlq'], 'Invalid dlq subcommand: none given; allowed: summarize'],
    [['dlq', 'sumarize'], 'Invalid dlq subcommand: got "sumarize"; allowed: summarize'],
  ])('%j: the dlq subcommand, and the subcommands allowed', (argv, message) => {
    const error = refusal(() => parseCommandLine(argv, {}));
    expect(error.message).toBe(message);
    expect(usageFor(error, argv)).toBe(DLQ_USAGE);
  });

  it.each([
    [['redrive'], 'Invalid redrive kind: none given; allowed: relay-dlq, queue-dlq, on-failure'],
    [['redrive', 'relay'], 'Invalid redrive kind: got "relay"; allowed: relay-dlq, queue-dlq, on-failure'],
    [['redrive', ''], 'Invalid redrive kind: got ""; allowed: relay-dlq, queue-dlq, on-failure'],
  ])('%j: the redrive kind, and the kinds allowed', (argv, message) => {
    expect(refusal(() => parseCommandLine(argv, {})).message).toBe(message);
  });

  it('calls a redrive command line of another command a command', () => {
    expect(refusal(() => parseRedriveArgs(['replay', 'relay-dlq'], {})).message).toBe('Invalid command: got "replay"; allowed: redrive');
    expect(refusal(() => parseRedriveArgs([], {})).message).toBe('Invalid command: none given; allowed: redrive');
  });
});
