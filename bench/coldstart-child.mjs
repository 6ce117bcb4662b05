/*
 * Runs in a fresh `node` process for the cold-start benchmark: imports one bundle, calls its
 * handler once with the event in COLDSTART_EVENT, and prints the moments (ms since the process
 * started) after the import and after the answer, on one line of its own.
 */
const started = performance.now();
const module = await import(process.env.COLDSTART_BUNDLE);
const loaded = performance.now();
const context = { awsRequestId: 'coldstart', functionName: 'coldstart', getRemainingTimeInMillis: () => 30_000 };
const answer = await module.handler(JSON.parse(process.env.COLDSTART_EVENT), context);
const answered = performance.now();
process.stdout.write(`\nCOLDSTART ${JSON.stringify({ started, loaded, answered, answer })}\n`);
