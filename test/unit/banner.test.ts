import { describe, expect, it } from 'vitest';
import { config } from '../../examples/orders/outbox.config.js';
import { renderBanner } from '../../shared/local/stack/banner.js';
import type { LocalStack } from '../../shared/local/stack/local-stack.js';

const stack = {
  apiUrl: 'http://127.0.0.1:3000',
  dynamoDb: { endpoint: 'http://127.0.0.1:8000', pid: 4242 },
  emulatorEndpoint: 'http://127.0.0.1:4566',
  tableName: 'outbox',
  tableCreated: true,
  resources: {
    topicArns: {},
    relayDeadLetterQueue: { name: 'outbox-relay-dlq', url: '', arn: '' },
    failedBatchBucket: 'outbox-failed-batches',
    subscriptions: [],
  },
} as unknown as LocalStack;

describe('banner', () => {
  it('says that the emulator listens on loopback only, and DynamoDB Local on every interface, without authentication', () => {
    const lines = renderBanner(stack, config).split('\n');

    expect(lines).toContain(
      '  network          SNS/SQS/S3 listens on 127.0.0.1 only; DynamoDB Local listens on all interfaces, without authentication: run this on a trusted network',
    );
    expect(lines.find((l) => l.startsWith('  example API'))).toBe('  example API      http://127.0.0.1:3000');
  });

  it('says where the archive is when the config has one, and nothing of it otherwise', () => {
    const archive = { bucket: 'outbox-archive', queue: { name: 'outbox-archive', url: '', arn: '' } };
    const withArchive = { ...stack, resources: { ...stack.resources, archive } } as unknown as LocalStack;
    expect(renderBanner(withArchive, config).split('\n')).toContain(
      '  archive          s3://outbox-archive/events/v1/ ← archiver handler ← queue outbox-archive (+ DLQ) ← every topic',
    );
    expect(renderBanner(stack, config)).not.toMatch(/^ {2}archive/m);
  });
});
