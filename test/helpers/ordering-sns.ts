import type { PublishBatchCommand, PublishBatchCommandOutput, PublishBatchRequestEntry } from '@aws-sdk/client-sns';
import type { PublishBatchClient } from '../../shared/relay/index.js';

/** What SNS does with one entry: accept it, fail it for now, or refuse it for good. */
export type OrderingFate = 'ok' | 'transient' | 'permanent';

/** The ids of the events an entry carries: one envelope, or a CloudEvents batch of several. */
export function eventIdsOf(entry: PublishBatchRequestEntry): string[] {
  const body = JSON.parse(entry.Message ?? '{}') as { id: string } | { id: string }[];
  return Array.isArray(body) ? body.map((e) => e.id) : [body.id];
}

/**
 * An in-memory SNS with SNS's hidden-order hazard: entries are answered one by one, and when a
 * later entry of a message group arrives while an earlier one of that group is still unanswered
 * (in the same request or another one in flight), the later one is accepted and the earlier one
 * fails — exactly what would reorder an aggregate whose events a relay sent ahead of each other.
 * Otherwise `fate` decides each entry. A request is answered on a later turn of the event loop,
 * so requests the relay sends together are all in flight before the first is answered.
 */
export class OrderingSns implements PublishBatchClient {
  /** Every entry sent, in order: its group and the events it carries. */
  readonly sent: { group: string; ids: string[] }[] = [];
  /** Events accepted, in order, each with its group. */
  readonly accepted: { group: string; id: string }[] = [];
  /** How often an entry arrived while an earlier entry of its group was unanswered. */
  overlaps = 0;
  requests = 0;
  private readonly unanswered = new Map<string, { doomed: boolean }>();

  constructor(private readonly fate: (ids: readonly string[], entry: PublishBatchRequestEntry) => OrderingFate = () => 'ok') {}

  async send(command: PublishBatchCommand): Promise<PublishBatchCommandOutput> {
    this.requests++;
    const entries = (command.input.PublishBatchRequestEntries ?? []).map((entry) => {
      const ids = eventIdsOf(entry);
      const group = entry.MessageGroupId ?? ids[0]!.split('-').slice(0, 2).join('-');
      this.sent.push({ group, ids });
      const earlier = this.unanswered.get(group);
      if (earlier !== undefined) {
        this.overlaps++;
        earlier.doomed = true;
      }
      const state = { doomed: false };
      this.unanswered.set(group, state);
      return { entry, ids, group, state };
    });
    await new Promise((resolve) => setImmediate(resolve));
    const output: PublishBatchCommandOutput = { Successful: [], Failed: [], $metadata: {} };
    for (const { entry, ids, group, state } of entries) {
      if (this.unanswered.get(group) === state) this.unanswered.delete(group);
      const fate = state.doomed ? 'transient' : this.fate(ids, entry);
      if (fate === 'ok') {
        for (const id of ids) this.accepted.push({ group, id });
        output.Successful!.push({ Id: entry.Id, MessageId: `m-${this.accepted.length}` });
      } else {
        output.Failed!.push({
          Id: entry.Id,
          Code: fate === 'permanent' ? 'InvalidParameter' : 'InternalError',
          SenderFault: fate === 'permanent',
          Message: fate,
        });
      }
    }
    return output;
  }

  /** The accepted events' ids by group, in the order SNS accepted them. */
  acceptedByGroup(): Map<string, string[]> {
    const groups = new Map<string, string[]>();
    for (const { group, id } of this.accepted) groups.set(group, [...(groups.get(group) ?? []), id]);
    return groups;
  }
}
