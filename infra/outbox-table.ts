import { RemovalPolicy, Token } from 'aws-cdk-lib';
import { AttributeType, Billing, StreamViewType, TableEncryptionV2, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { DYNAMODB_TABLE_NAME_ONLY_PATTERN } from '../shared/aws/dynamodb-table-name.js';
import { TABLE } from '../shared/table.js';
import { OutboxPropsError, tableKeyProblem } from './private/props-error.js';

/** Props of {@link OutboxTable}. */
export interface OutboxTableProps {
  /** Physical table name: 3–255 letters, digits, `_`, `-` and `.`. @default a name CloudFormation generates */
  readonly tableName?: string;
  /** Continuous backups, restorable to any second of the last 35 days. @default true */
  readonly pointInTimeRecovery?: boolean;
  /** Refuse `DeleteTable` until this is turned off. @default true */
  readonly deletionProtection?: boolean;
  /** What happens to the table when it leaves the stack. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Customer-managed key for encryption at rest; needs a stack with an explicit region. @default a key owned by DynamoDB (no KMS charges) */
  readonly encryptionKey?: IKey;
}

/**
 * The outbox's single table, keyed and streamed exactly as `shared/table.ts` defines it (string
 * `pk`/`sk`, stream `NEW_IMAGE`, TTL on `expiresAt`), on-demand, so the deployed table is the one
 * the write helper and the local stack use.
 *
 * @example
 * ```ts
 * const { table } = new OutboxTable(this, 'Table', { removalPolicy: RemovalPolicy.DESTROY, deletionProtection: false });
 * table.grantReadWriteData(apiFunction);
 * ```
 */
export class OutboxTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: OutboxTableProps = {}) {
    super(scope, id);
    const keyProblem = props.encryptionKey && tableKeyProblem(this);
    if (keyProblem) throw new OutboxPropsError(this.node.path, 'encryptionKey', keyProblem);
    const { tableName } = props;
    if (tableName !== undefined && !Token.isUnresolved(tableName) && !DYNAMODB_TABLE_NAME_ONLY_PATTERN.test(tableName)) {
      throw new OutboxPropsError(
        this.node.path,
        'tableName',
        `is ${JSON.stringify(tableName)}; allowed: 3–255 letters, digits, underscores, hyphens and dots (DynamoDB's table names)`,
      );
    }
    // `shared/table.ts` fixes both keys as strings (`S`); the template test holds the two together.
    const type = AttributeType.STRING;
    this.table = new TableV2(this, 'Table', {
      tableName: props.tableName,
      partitionKey: { name: TABLE.partitionKey, type },
      sortKey: { name: TABLE.sortKey, type },
      billing: Billing.onDemand(),
      dynamoStream: StreamViewType[TABLE.streamViewType],
      timeToLiveAttribute: TABLE.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: props.pointInTimeRecovery ?? true },
      deletionProtection: props.deletionProtection ?? true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      encryption: props.encryptionKey ? TableEncryptionV2.customerManagedKey(props.encryptionKey) : TableEncryptionV2.dynamoOwnedKey(),
    });
  }
}
