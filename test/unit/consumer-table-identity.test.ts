import { describe, expect, it } from 'vitest';
import { clientRegionOf, sameTable, tableIdentity } from '../../shared/consumer/table-identity.js';

const arn = (region: string, account: string, name = 'orders') => `arn:aws:dynamodb:${region}:${account}:table/${name}`;
const same = (a: string, b: string, region: string | undefined) => sameTable(tableIdentity(a, region), tableIdentity(b, region));

describe("a commit group's tables: a name and an ARN are one table only in the client's region", () => {
  it("takes a name and the ARN of that name in the client's region for one table, either way round", () => {
    expect(same('orders', arn('eu-west-1', '111111111111'), 'eu-west-1')).toBe(true);
    expect(same(arn('eu-west-1', '111111111111'), 'orders', 'eu-west-1')).toBe(true);
    expect(same('orders', 'orders', 'eu-west-1')).toBe(true);
    expect(same(arn('eu-west-1', '111111111111'), arn('eu-west-1', '111111111111'), 'eu-west-1')).toBe(true);
  });

  it('takes an ARN of another region, another account (beside an ARN) or another name for another table', () => {
    expect(same('orders', arn('us-east-1', '111111111111'), 'eu-west-1')).toBe(false);
    expect(same(arn('us-east-1', '111111111111'), 'orders', 'eu-west-1')).toBe(false);
    expect(same(arn('eu-west-1', '111111111111'), arn('eu-west-1', '222222222222'), 'eu-west-1')).toBe(false);
    expect(same('orders', arn('eu-west-1', '111111111111', 'orders-v2'), 'eu-west-1')).toBe(false);
    expect(same('orders', 'Orders', 'eu-west-1')).toBe(false);
  });

  it("takes no ARN for a name's table when the client's region is not known", () => {
    expect(same('orders', arn('eu-west-1', '111111111111'), undefined)).toBe(false);
    expect(same('orders', 'orders', undefined)).toBe(true);
  });

  it("reads the client's region from its config, a provider or a string; none when it fails", async () => {
    expect(await clientRegionOf({ config: { region: async () => 'eu-west-1' } } as never)).toBe('eu-west-1');
    expect(await clientRegionOf({ config: { region: 'eu-west-1' } } as never)).toBe('eu-west-1');
    expect(
      await clientRegionOf({
        config: {
          region: async () => {
            throw new Error('Region is missing');
          },
        },
      } as never),
    ).toBeUndefined();
  });
});
