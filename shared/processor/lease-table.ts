import type { AttributeValue, CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { errorName } from '../aws/error-name.js';
import { logAsIs } from '../aws/unfiltered-log.js';
import { LeaseLostError } from './errors.js';
import { appliedWrite, type FailedAttempts, hasStarted, type Lease, type LeaseStore, TRIM_HORIZON } from './lease.js';
import { checkLeaseTableName } from './processor-options.js';

/** The lease table's definition, shared by the CDK construct and local set-ups. */
export const LEASE_TABLE = Object.freeze({ partitionKey: 'leaseKey', keyType: 'S' } as const);

/** `CreateTable` input for a lease table (on-demand, key `leaseKey`); a name DynamoDB refuses is a `ProcessorOptionsError`. */
export function createLeaseTableInput(tableName: string): CreateTableCommandInput {
  checkLeaseTableName('tableName', tableName);
  return {
    TableName: tableName,
    AttributeDefinitions: [{ AttributeName: LEASE_TABLE.partitionKey, AttributeType: LEASE_TABLE.keyType }],
    KeySchema: [{ AttributeName: LEASE_TABLE.partitionKey, KeyType: 'HASH' }],
    BillingMode: 'PAY_PER_REQUEST',
  };
}

const isConditionFailure = (error: unknown): boolean => errorName(error) === 'ConditionalCheckFailedException';

function toLease(item: Record<string, unknown>): Lease {
  return {
    leaseKey: String(item.leaseKey),
    ...(typeof item.leaseOwner === 'string' ? { leaseOwner: item.leaseOwner } : {}),
    leaseCounter: Number(item.leaseCounter ?? 0),
    checkpoint: String(item.checkpoint ?? TRIM_HORIZON),
    parentShardIds: Array.isArray(item.parentShardIds) ? item.parentShardIds.map(String) : [],
    ownerSwitchesSinceCheckpoint: Number(item.ownerSwitchesSinceCheckpoint ?? 0),
    ...(typeof item.failedSequenceNumber === 'string' && typeof item.failedAttempts === 'number'
      ? { failedAttempts: { sequenceNumber: item.failedSequenceNumber, attempts: item.failedAttempts } }
      : {}),
    // Stored as the marking owner's id: a mark a take did not clear (a worker of an earlier
    // version takes without clearing it) names another owner than the lease's, and is ignored.
    ...(typeof item.handingOverBy === 'string' && item.handingOverBy === item.leaseOwner ? { handingOver: true as const } : {}),
  };
}

/**
 * The lease table on DynamoDB. Every write is a conditional update on `leaseCounter` (and the
 * owner where it matters); a failed condition is translated into `LeaseLostError` or a
 * `undefined`/`false` result, never swallowed.
 *
 * @example
 * ```ts
 * const leases = new DynamoDbLeaseTable(DynamoDBDocumentClient.from(new DynamoDBClient({})), 'outbox-leases');
 * const all = await leases.list();
 * ```
 */
export class DynamoDbLeaseTable implements LeaseStore {
  constructor(
    private readonly document: DynamoDBDocumentClient,
    readonly tableName: string,
  ) {}

  async list(): Promise<Lease[]> {
    const leases: Lease[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.document.send(
        logAsIs(new ScanCommand({ TableName: this.tableName, ConsistentRead: true, ExclusiveStartKey: start })),
      );
      for (const item of page.Items ?? []) leases.push(toLease(item));
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    return [...leases, ...(await this.parentsMissedBy(leases))];
  }

  /**
   * The parents of children not yet started that the scan did not return but that exist. A scan
   * is not a snapshot: one over several pages (a lease table over 1 MB) can read a parent's
   * page before a shard sync creates the parent and its child's page after, and a child whose
   * parent is missing would start at once. A consistent read of each such parent closes that.
   */
  private async parentsMissedBy(leases: readonly Lease[]): Promise<Lease[]> {
    const listed = new Set(leases.map((lease) => lease.leaseKey));
    const missing = new Set(
      leases.filter((lease) => !hasStarted(lease)).flatMap((lease) => lease.parentShardIds.filter((parent) => !listed.has(parent))),
    );
    const found = await Promise.all(
      [...missing].map(async (leaseKey) => {
        const { Item } = await this.document.send(
          logAsIs(new GetCommand({ TableName: this.tableName, Key: { leaseKey }, ConsistentRead: true })),
        );
        return Item === undefined ? undefined : toLease(Item);
      }),
    );
    return found.filter((lease): lease is Lease => lease !== undefined);
  }

  async create(leaseKey: string, parentShardIds: readonly string[]): Promise<boolean> {
    try {
      await this.document.send(
        logAsIs(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              leaseKey,
              leaseCounter: 0,
              checkpoint: TRIM_HORIZON,
              parentShardIds: [...parentShardIds],
              ownerSwitchesSinceCheckpoint: 0,
            },
            ConditionExpression: 'attribute_not_exists(leaseKey)',
          }),
        ),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async renew(lease: Lease, owner: string): Promise<Lease> {
    const updated = await this.update(lease, owner, 'SET leaseCounter = leaseCounter + :one', {}, (found) =>
      appliedWrite.renew(found, lease, owner),
    );
    if (updated === undefined) throw new LeaseLostError(lease.leaseKey, 'renew', { owner, counter: lease.leaseCounter });
    return updated;
  }

  async take(lease: Lease, owner: string): Promise<Lease | undefined> {
    const switched = lease.leaseOwner === owner ? 0 : 1;
    return this.update(
      lease,
      undefined,
      'SET leaseCounter = leaseCounter + :one, leaseOwner = :newOwner, ownerSwitchesSinceCheckpoint = ownerSwitchesSinceCheckpoint + :switched REMOVE handingOverBy',
      { ':newOwner': owner, ':switched': switched },
      (found) => appliedWrite.take(found, lease, owner),
    );
  }

  async checkpoint(lease: Lease, owner: string, checkpoint: string): Promise<Lease> {
    const updated = await this.update(
      lease,
      owner,
      'SET leaseCounter = leaseCounter + :one, checkpoint = :checkpoint, ownerSwitchesSinceCheckpoint = :zero REMOVE failedSequenceNumber, failedAttempts',
      { ':checkpoint': checkpoint, ':zero': 0 },
      (found) => appliedWrite.checkpoint(found, lease, owner, checkpoint),
    );
    if (updated === undefined) throw new LeaseLostError(lease.leaseKey, 'checkpoint', { owner, counter: lease.leaseCounter });
    return updated;
  }

  async recordFailure(lease: Lease, owner: string, failed: FailedAttempts): Promise<Lease> {
    const updated = await this.update(
      lease,
      owner,
      'SET leaseCounter = leaseCounter + :one, failedSequenceNumber = :failedSequenceNumber, failedAttempts = :failedAttempts',
      { ':failedSequenceNumber': failed.sequenceNumber, ':failedAttempts': failed.attempts },
      (found) => appliedWrite.recordFailure(found, lease, owner, failed),
    );
    if (updated === undefined) throw new LeaseLostError(lease.leaseKey, 'recordFailure', { owner, counter: lease.leaseCounter });
    return updated;
  }

  async release(lease: Lease, owner: string): Promise<void> {
    const updated = await this.update(
      lease,
      owner,
      'SET leaseCounter = leaseCounter + :one REMOVE leaseOwner, handingOverBy',
      {},
      (found) => appliedWrite.release(found, lease),
    );
    if (updated === undefined) throw new LeaseLostError(lease.leaseKey, 'release', { owner, counter: lease.leaseCounter });
  }

  async handOver(lease: Lease, owner: string): Promise<Lease> {
    const updated = await this.update(lease, owner, 'SET leaseCounter = leaseCounter + :one, handingOverBy = :owner', {}, (found) =>
      appliedWrite.handOver(found, lease, owner),
    );
    if (updated === undefined) throw new LeaseLostError(lease.leaseKey, 'handOver', { owner, counter: lease.leaseCounter });
    return updated;
  }

  async remove(lease: Lease): Promise<boolean> {
    try {
      await this.document.send(
        logAsIs(
          new DeleteCommand({
            TableName: this.tableName,
            Key: { leaseKey: lease.leaseKey },
            ConditionExpression: 'leaseCounter = :counter',
            ExpressionAttributeValues: { ':counter': lease.leaseCounter },
          }),
        ),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * A conditional update on the counter (and owner when given); `undefined` when the condition
   * failed. A failed condition that finds the lease as this very update leaves it (`applied`) is
   * the SDK's retry of an update whose first attempt was applied but whose answer was lost (a
   * timeout, a reset connection): that is the update's success, not a lease taken by another.
   */
  private async update(
    lease: Lease,
    owner: string | undefined,
    expression: string,
    values: Record<string, unknown>,
    applied: (found: Lease) => boolean,
  ): Promise<Lease | undefined> {
    try {
      const { Attributes } = await this.document.send(
        logAsIs(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { leaseKey: lease.leaseKey },
            UpdateExpression: expression,
            ConditionExpression: `leaseCounter = :counter${owner === undefined ? '' : ' AND leaseOwner = :owner'}`,
            ExpressionAttributeValues: {
              ':counter': lease.leaseCounter,
              ':one': 1,
              ...(owner === undefined ? {} : { ':owner': owner }),
              ...values,
            },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        ),
      );
      return toLease(Attributes ?? {});
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const item = (error as { Item?: Record<string, AttributeValue> }).Item;
      const found = item === undefined ? undefined : toLease(unmarshall(item));
      return found !== undefined && applied(found) ? found : undefined;
    }
  }
}
