import type { SQSClient } from '@aws-sdk/client-sqs';
import type { FauxqsServer } from 'fauxqs';
import { testClients } from './local.js';

type SqsCommandName =
  | 'ReceiveMessageCommand'
  | 'DeleteMessageBatchCommand'
  | 'ChangeMessageVisibilityBatchCommand'
  | 'GetQueueAttributesCommand';

/** What a {@link flakySqs} client saw. */
export interface SqsCalls {
  /** Each request, by command name, with when it was sent (epoch ms) and whether it was made to fail. */
  readonly sent: { readonly command: string; readonly at: number; readonly failed: boolean }[];
  /** Requests sent and not yet answered, by command name. */
  readonly inFlight: Map<string, number>;
}

/**
 * An SQSClient on the emulator whose first `failures[command]` requests of each command fail
 * with a network error (`ECONNRESET`) before reaching it, as a reset connection does once the
 * SDK's retries are spent; every other request goes through. Counts the requests in flight.
 */
export function flakySqs(
  server: FauxqsServer,
  failures: Partial<Record<SqsCommandName, number>> = {},
): { sqs: SQSClient; calls: SqsCalls; destroy: () => void } {
  const clients = testClients(server.address);
  const { sqs } = clients;
  const left = new Map(Object.entries(failures));
  const calls: SqsCalls = { sent: [], inFlight: new Map() };
  const send = sqs.send.bind(sqs) as (command: object, options?: object) => Promise<unknown>;
  sqs.send = (async (command: object, options?: object) => {
    const name = command.constructor.name;
    const failing = (left.get(name) ?? 0) > 0;
    calls.sent.push({ command: name, at: Date.now(), failed: failing });
    if (failing) {
      left.set(name, (left.get(name) ?? 0) - 1);
      throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    }
    calls.inFlight.set(name, (calls.inFlight.get(name) ?? 0) + 1);
    try {
      return await send(command, options);
    } finally {
      calls.inFlight.set(name, (calls.inFlight.get(name) ?? 0) - 1);
    }
  }) as typeof sqs.send;
  return { sqs, calls, destroy: () => clients.destroy() };
}

/** The gaps (ms) between consecutive requests of `command`, each paired with whether the earlier one failed. */
export function gapsBetween(calls: SqsCalls, command: SqsCommandName): { afterFailure: boolean; ms: number }[] {
  const sent = calls.sent.filter((c) => c.command === command);
  return sent.slice(1).map((c, i) => ({ afterFailure: sent[i]?.failed ?? false, ms: c.at - (sent[i]?.at ?? c.at) }));
}
