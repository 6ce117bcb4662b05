import { Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import { describe, expect, it } from 'vitest';
import { config } from '../../examples/orders/outbox.config.js';
import { Outbox } from '../../infra/outbox.js';
import { appWithoutBundling } from '../helpers/cdk.js';

const WARNING = 'dynamodb-outbox:imported-encryption-key';

/** The outbox's warnings about its key, with the key `key(stack)` makes. */
function keyWarnings(key: (stack: Stack) => IKey) {
  const stack = new Stack(appWithoutBundling(), 'Keyed', { env: { account: '123456789012', region: 'eu-west-1' } });
  new Outbox(stack, 'Outbox', { config, encryptionKey: key(stack) });
  return Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp(WARNING));
}

describe('Outbox: an encryption key whose policy the app cannot change', () => {
  it('warns at synth that SNS must be let use an imported key, or it delivers to no queue of the outbox', () => {
    const warnings = keyWarnings((stack) =>
      Key.fromKeyArn(stack, 'Imported', 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab'),
    );
    expect(warnings).toHaveLength(1);
    const text = JSON.stringify(warnings[0]?.entry.data);
    expect(text).toContain('Keyed/Imported is imported, so its key policy cannot be changed here');
    expect(text).toContain('sns.amazonaws.com');
    expect(text).toContain('kms:GenerateDataKey and kms:Decrypt');
  });

  it('says nothing of a key defined in the app, whose policy the constructs extend', () => {
    expect(keyWarnings((stack) => new Key(stack, 'Own'))).toHaveLength(0);
  });
});
