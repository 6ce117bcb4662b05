/*
 * `npm start`: the local stack. Until it lands, say so plainly instead of failing obscurely.
 */
console.log(
  'dynamodb-outbox: the local stack (`npm start`) is not available yet in this version.\n' +
    'What works today: `npm test` (DynamoDB Local + SNS/SQS emulator integration tests) and `npm run bench:write`.',
);
