import { requireEnv } from '../../shared/env.js';
import { createRelayHandler, relayEnvironment } from '../../shared/relay/index.js';
import { LAMBDA_FUNCTION_NAME_ENV } from '../../shared/relay/metrics.js';

// Read and validated once per cold start: a bad deployment fails loudly on the first invocation.
const environment = relayEnvironment();
// The default metrics carry the function's name when Lambda sets it, and the construct's dashboard
// and alarms look for it there: a deployed relay without it would write metrics nobody reads.
requireEnv(LAMBDA_FUNCTION_NAME_ENV, process.env, "the function's name, which Lambda sets in every function's environment");

/** The Lambda relay: DynamoDB stream batch in, `batchItemFailures` out. */
export const handler = createRelayHandler(environment);
