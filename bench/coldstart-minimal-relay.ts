import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';

/*
 * The minimal hand-rolled relay the cold-start benchmark measures the shipped one against: an SNS
 * client and a Publish loop, one message per event of each new slot image, to one topic. No
 * envelope beyond the event itself, no routing, no retries, order or dead letters.
 */
const sns = new SNSClient({});
const topicArn = process.env.MINIMAL_TOPIC_ARN;

export const handler = async (event: DynamoDBStreamEvent): Promise<void> => {
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (image === undefined) continue;
    const slot = unmarshall(image as Parameters<typeof unmarshall>[0]) as { events?: { id: string; type: string; data: string }[] };
    for (const e of slot.events ?? []) {
      await sns.send(
        new PublishCommand({ TopicArn: topicArn, Message: JSON.stringify({ id: e.id, type: e.type, data: JSON.parse(e.data) }) }),
      );
    }
  }
};
