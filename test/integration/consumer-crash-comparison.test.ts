import { afterAll, describe, expect, inject, it } from 'vitest';
import { crashAndRedeliver } from '../../bench/consumer-crash.js';
import { testClients } from '../helpers/local.js';

/*
 * The correctness half of the consumer benchmark (bench/consumer.ts), checked on every run: the
 * process dies right after the request that makes the business effect durable is answered, then
 * SQS delivers the message again until a delivery is acknowledged (bench/consumer-crash.ts).
 */
const clients = testClients();
afterAll(() => clients.destroy());

describe('a crash between the business write and the dedup record, then redelivery', () => {
  it('applies the effect once with the inbox by transaction: effect and inbox record commit together', async () => {
    const result = await crashAndRedeliver('transaction', inject('dynamodbEndpoint'), clients.dynamodb);

    expect(result).toMatchObject({ applied: 1, deliveries: 2 });
  });

  it("applies each effect once with commit: 'batch' when the group's transaction of three events was answered: the redeliveries are duplicates", async () => {
    const result = await crashAndRedeliver('batch', inject('dynamodbEndpoint'), clients.dynamodb);

    expect(result).toMatchObject({ appliedPerEvent: [1, 1, 1], deliveries: 2 });
  });

  it("applies each effect once with commit: 'batch' when the process dies before the group commits: nothing of it was written", async () => {
    const result = await crashAndRedeliver('batch', inject('dynamodbEndpoint'), clients.dynamodb, 'before');

    expect(result).toMatchObject({ appliedPerEvent: [1, 1, 1], deliveries: 2 });
  });

  it('applies the effect twice with Powertools idempotency: its record stays in progress and expires with the crashed invocation', async () => {
    const result = await crashAndRedeliver('powertools', inject('dynamodbEndpoint'), clients.dynamodb);

    expect(result).toMatchObject({ applied: 2, deliveries: 2 });
  });

  it('applies the effect twice with the inbox by claim, as documented: the claim lapses and the next delivery runs the handler again', async () => {
    const result = await crashAndRedeliver('claim', inject('dynamodbEndpoint'), clients.dynamodb);

    expect(result).toMatchObject({ applied: 2, deliveries: 2 });
  });
});
