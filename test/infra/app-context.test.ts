import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { appContext, ContextError } from '../../examples/orders/infra/app-context.js';

const contextOf = (context: Record<string, unknown>) => appContext(new App({ context }).node);

describe('appContext', () => {
  it('defaults to a stack named DynamoDbOutbox that keeps its data, AWS-key-encrypted, without alarm mail', () => {
    expect(contextOf({})).toEqual({ stackName: 'DynamoDbOutbox', retainData: true, alarmEmail: undefined, customerManagedKey: false });
  });

  it('reads booleans given as -c strings and as cdk.json booleans', () => {
    expect(contextOf({ retainData: 'true', customerManagedKey: true })).toMatchObject({ retainData: true, customerManagedKey: true });
    expect(contextOf({ retainData: 'false', customerManagedKey: false })).toMatchObject({ retainData: false, customerManagedKey: false });
  });

  it('passes the stack name and alarm e-mail through', () => {
    expect(contextOf({ stackName: 'Outbox-Staging', alarmEmail: 'oncall@example.com' })).toMatchObject({
      stackName: 'Outbox-Staging',
      alarmEmail: 'oncall@example.com',
    });
  });

  it('rejects a boolean option that is neither true nor false', () => {
    expect(() => contextOf({ retainData: 'yes' })).toThrow(ContextError);
    expect(() => contextOf({ retainData: 'yes' })).toThrow('Context option retainData: got "yes"; allowed: true or false');
  });

  it('rejects a stack name CloudFormation would refuse', () => {
    expect(() => contextOf({ stackName: 'my_stack' })).toThrow(
      'Context option stackName: got "my_stack"; allowed: a letter then up to 127 letters, digits or "-"',
    );
  });

  it('rejects an empty alarm e-mail', () => {
    expect(() => contextOf({ alarmEmail: '' })).toThrow('Context option alarmEmail: got ""; allowed: a non-empty string');
  });
});
