/**
 * `dynamodb-outbox/testing`: the real pipeline on one machine, for a service's own tests.
 */

export { type LocalStack, type LocalStackOptions, startLocalStack } from './stack/local-stack.js';
