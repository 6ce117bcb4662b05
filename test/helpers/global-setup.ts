import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../shared/local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
  }
}

let ddb: DynamoDbLocal | undefined;

/** One DynamoDB Local (in memory, free port) for the whole run; each test file makes its own tables. */
export async function setup(project: TestProject): Promise<void> {
  ddb = await startDynamoDbLocal();
  project.provide('dynamodbEndpoint', ddb.endpoint);
}

export async function teardown(): Promise<void> {
  await ddb?.stop();
}
