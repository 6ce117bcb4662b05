/**
 * Which table a request's `TableName` names, as a `commit: 'batch'` group tells two writes of one
 * item apart: DynamoDB takes a table's name or its ARN there. A name is the table of that name in
 * the client's region and account; an ARN names its own region and account. So a name and an ARN
 * are one table when the ARN's table name is the name and its region the client's: the client's
 * account is not known here (no request asks for it), so an ARN of the client's region is taken
 * for the name's table whatever its account. Two ARNs are one table when their region, account
 * and name are one. An ARN of another region is never the name's table; when the client's region
 * is not known, no ARN is.
 */

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** A table ARN: `arn:<partition>:dynamodb:<region>:<account>:table/<name>`. */
const TABLE_ARN = /^arn:[^:]+:dynamodb:([^:]*):([^:]*):table\/([^/]+)$/;

/** A table, as one text for the region and name, and the account when the ARN says it (`undefined` for a name: the client's). */
export interface TableIdentity {
  readonly table: string;
  readonly account: string | undefined;
}

/** Stands for the region of a name whose client's region is not known: no ARN's region is it. */
const UNKNOWN_REGION = '\u0000';

/** The table `tableName` names for a client of `clientRegion` (`undefined` when not known). */
export function tableIdentity(tableName: string | undefined, clientRegion: string | undefined): TableIdentity {
  const arn = tableName === undefined ? null : TABLE_ARN.exec(tableName);
  if (arn !== null) return { table: `${arn[1]}\u0000${arn[3]}`, account: arn[2] };
  return { table: `${clientRegion ?? UNKNOWN_REGION}\u0000${tableName}`, account: undefined };
}

/** Whether two tables are one: same region and name, and same account unless either is a name's (the client's account). */
export const sameTable = (a: TableIdentity, b: TableIdentity): boolean =>
  a.table === b.table && (a.account === undefined || b.account === undefined || a.account === b.account);

/** The region of the client's requests, `undefined` when it has none or its provider fails (then no ARN is taken for a name's table). */
export async function clientRegionOf(document: Pick<DynamoDBDocumentClient, 'config'>): Promise<string | undefined> {
  try {
    const { region } = document.config as { region?: unknown };
    const value: unknown = typeof region === 'function' ? await region() : region;
    return typeof value === 'string' && value !== '' ? value : undefined;
  } catch {
    return undefined;
  }
}
