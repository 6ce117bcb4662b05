import { Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Outbox, type OutboxProps } from '../../infra/outbox.js';
import { defineConfig, type OutboxConfigInput } from '../../shared/config.js';
import { appWithoutBundling, logicalId, resource } from './cdk.js';

/** An outbox config with an archive, a FIFO topic and two standard ones. */
export const archiveInput: OutboxConfigInput = {
  source: 'urn:test:archive',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }, { name: 'audit' }],
  routes: { order: 'orders.fifo', payment: 'payments', ledger: 'audit' },
  archive: { retentionDays: 400 },
};

/** An Outbox alone in a stack (with an explicit env, so it can take a key), built from `configInput`. */
export function buildArchiveOutbox(
  props: Partial<OutboxProps> & { withKey?: boolean } = {},
  configInput: OutboxConfigInput = archiveInput,
) {
  const stack = new Stack(appWithoutBundling(), 'Archive', { env: { account: '123456789012', region: 'eu-west-1' } });
  const { withKey, ...rest } = props;
  const outbox = new Outbox(stack, 'Outbox', {
    config: defineConfig(configInput),
    ...(withKey ? { encryptionKey: new Key(stack, 'Key', { enableKeyRotation: true }) } : {}),
    ...rest,
  });
  return { stack, outbox };
}

/** The properties of the one resource of `type` whose logical id starts with `prefix`. */
export const propertiesOf = (template: Template, type: string, prefix: string) =>
  resource(template, type, logicalId(template, type, prefix)).Properties;
