import { createArchiverHandler } from '../../shared/archive/archiver.js';
import { archiverEnvironment } from '../../shared/archive/archiver-env.js';
import { requireEnv } from '../../shared/env.js';
import { LAMBDA_FUNCTION_NAME_ENV } from '../../shared/relay/metrics.js';

// Read and validated once per cold start: a bad deployment fails loudly on the first invocation.
const environment = archiverEnvironment();
// The metrics carry the function's name, where the construct's alarms look for them.
requireEnv(LAMBDA_FUNCTION_NAME_ENV, process.env, "the archiver function's name, which Lambda sets");

/** The archiver Lambda: a batch of the archive queue's messages in, `batchItemFailures` out. */
export const handler = createArchiverHandler(environment);
