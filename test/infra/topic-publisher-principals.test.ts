import { Stack } from 'aws-cdk-lib';
import { AccountPrincipal, AccountRootPrincipal, AnyPrincipal, ArnPrincipal, Role } from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { config } from '../../examples/orders/outbox.config.js';
import { OutboxTopics } from '../../infra/outbox-topics.js';
import { appWithoutBundling, expectPropsError } from '../helpers/cdk.js';

const topicsIn = (id: string): OutboxTopics => new OutboxTopics(new Stack(appWithoutBundling(), id), 'Topics', { config });

// The topic policies deny sns:Publish to every aws:PrincipalArn but the publishers', so a
// publisher must be a role or a user: an account's root ARN would let no role of it through, and
// `*` would match every principal and turn the denial off for all.
describe('OutboxTopics.grantPublish: only principals with a role or user ARN', () => {
  it.each([
    ['an account', () => new AccountPrincipal('123456789012')],
    ['the account root', () => new AccountRootPrincipal()],
    ['anyone', () => new AnyPrincipal()],
    ['an ARN that is no role or user', () => new ArnPrincipal('arn:aws:iam::123456789012:root')],
  ])('rejects %s, naming it and what is allowed', (_, principal) => {
    const topics = topicsIn('Rejects');
    expectPropsError(() => topics.grantPublish(principal()), 'grantPublish', 'has no role or user ARN', 'allowed: a role');
  });

  it('accepts an ArnPrincipal of a role or a user, and one whose ARN is known only at deploy', () => {
    const topics = topicsIn('Accepts');
    const role = new Role(topics, 'Role', { assumedBy: new AccountRootPrincipal() });
    for (const arn of ['arn:aws:iam::123456789012:role/ops/publisher', 'arn:aws:iam::123456789012:user/operator', role.roleArn]) {
      expect(() => topics.grantPublish(new ArnPrincipal(arn))).not.toThrow();
    }
  });
});
