import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';

/** An SQS queue that hands out the given receives in turn and answers sends with `sendBatch`. */
export function scriptedQueue(receives: Message[][], sendBatch: (entries: SendMessageBatchRequestEntry[]) => Promise<unknown>) {
  const sent: SendMessageBatchRequestEntry[][] = [];
  const sqs = {
    send: async (command: unknown): Promise<unknown> => {
      if (command instanceof GetQueueAttributesCommand) return { Attributes: {} };
      if (command instanceof ReceiveMessageCommand) return { Messages: receives.shift() ?? [] };
      if (command instanceof SendMessageBatchCommand) {
        const entries = command.input.Entries ?? [];
        sent.push(entries);
        return sendBatch(entries);
      }
      if (command instanceof DeleteMessageBatchCommand)
        return { Successful: command.input.Entries?.map((e) => ({ Id: e.Id })), Failed: [] };
      if (command instanceof ChangeMessageVisibilityBatchCommand) return { Successful: [], Failed: [] };
      throw new Error(`unexpected command ${(command as object).constructor.name}`);
    },
  };
  return { sqs: sqs as unknown as SQSClient, sent };
}
