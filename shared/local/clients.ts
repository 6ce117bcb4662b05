import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { S3Client } from '@aws-sdk/client-s3';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { snsClient, sqsClient } from '../aws/messaging-clients.js';
import { streamsClient } from '../aws/streams-client.js';

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/** Endpoints of the local parts: DynamoDB Local and the SNS/SQS/S3 emulator. */
export interface LocalEndpoints {
  readonly dynamodb: string;
  readonly aws?: string;
}

/** SDK clients pointed at the local parts, each created once. */
export interface LocalClients {
  readonly dynamodb: DynamoDBClient;
  readonly document: DynamoDBDocumentClient;
  readonly streams: DynamoDBStreamsClient;
  readonly sns: SNSClient;
  readonly sqs: SQSClient;
  readonly s3: S3Client;
  destroy(): void;
}

export function localClients(endpoints: LocalEndpoints): LocalClients {
  const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const dynamodb = new DynamoDBClient({ ...common, endpoint: endpoints.dynamodb });
  const streams = streamsClient({ ...common, endpoint: endpoints.dynamodb });
  const aws = endpoints.aws ?? 'http://127.0.0.1:1';
  const sns = snsClient({ ...common, endpoint: aws });
  const sqs = sqsClient({ ...common, endpoint: aws });
  const s3 = new S3Client({ ...common, endpoint: aws, forcePathStyle: true });
  return {
    dynamodb,
    document: DynamoDBDocumentClient.from(dynamodb),
    streams,
    sns,
    sqs,
    s3,
    destroy() {
      for (const client of [dynamodb, streams, sns, sqs, s3]) client.destroy();
    },
  };
}
