/**
 * A client's logger gets the package's DynamoDB requests and answers as they are. The SDK's logger
 * middleware runs each command's log filter on every request and answer, for a client whose logger
 * is the default no-op one too: a walk of the input and output by the low-level command's schema,
 * which copies the whole request each time and, for a DocumentClient command (whose input and
 * output are plain values, not attribute values), logs lists, maps, sets, binary values and numbers
 * in maps as `{}`. DynamoDB's API marks no member sensitive (test/integration/write-client-logger.test.ts
 * walks the schema to keep it so), so the filter hides nothing: the package's commands skip it.
 */

import type {
  AbsoluteLocation,
  HandlerExecutionContext,
  InitializeHandler,
  InitializeHandlerOptions,
  MiddlewareStack,
} from '@smithy/types';

const asLogged = <T>(value: T): T => value;

/**
 * The log filters DynamoDB's requests need: none. The logger middleware reads these overrides of
 * the request's context (the SDK's own, public fields) before the command's filters.
 */
const UNFILTERED_LOG = {
  overrideInputFilterSensitiveLog: asLogged,
  overrideOutputFilterSensitiveLog: asLogged,
} as unknown as NonNullable<HandlerExecutionContext['dynamoDbDocumentClientOptions']>;

/** Where {@link logAsIs} adds its middleware: first of all, so whatever fails later is logged as it is too. */
const PLACE: InitializeHandlerOptions & AbsoluteLocation = {
  step: 'initialize',
  priority: 'high',
  name: 'outboxUnfilteredLog',
  override: true,
};

/** Sets the overrides on the request's context, where none is set: a filter the user's own middleware set there stays. */
const unfilteredLog =
  <Input extends object, Output extends object>(next: InitializeHandler<Input, Output>, context: HandlerExecutionContext) =>
  (args: Parameters<InitializeHandler<Input, Output>>[0]) => {
    context.dynamoDbDocumentClientOptions = { ...UNFILTERED_LOG, ...context.dynamoDbDocumentClientOptions };
    return next(args);
  };

/** A command of the AWS SDK (a DocumentClient command, or a low-level one), by the stack its middleware goes on. */
interface SdkCommand<Input extends object, Output extends object> {
  readonly middlewareStack: Pick<MiddlewareStack<Input, Output>, 'add'>;
}

/**
 * Adds to `command` (its own middleware, never the client's: the client is the user's) the
 * middleware by which the client's logger gets its request and answer as they are; returns the command.
 *
 * @example
 * ```ts
 * const { Item } = await document.send(logAsIs(new GetCommand({ TableName, Key, ConsistentRead: true })));
 * ```
 */
export function logAsIs<Input extends object, Output extends object, Command extends SdkCommand<Input, Output>>(
  command: Command & SdkCommand<Input, Output>,
): Command {
  command.middlewareStack.add(unfilteredLog, PLACE);
  return command;
}
