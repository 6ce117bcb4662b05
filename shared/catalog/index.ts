/**
 * `dynamodb-outbox/catalog`: the config's event catalog as an AsyncAPI 3.0 document, and the
 * check of the current catalog against the last published one, which `npx dynamodb-outbox
 * catalog` and `catalog check` run.
 */

export { OutboxError } from '../errors.js';
export { dataschemaOf, type EventTypeDeclaration, type EventTypeInput } from '../event-types.js';
export type { BreakingChange, BreakingKind } from '../json-schema/keywords.js';
export {
  type AsyncApiDocument,
  type CatalogDocument,
  type CatalogDocumentOptions,
  type CatalogEventEntry,
  catalogDocument,
  EVENT_EXTENSION,
} from './asyncapi.js';
export { type CatalogCheckResult, checkCatalog } from './check.js';
export {
  CatalogError,
  type CatalogErrorCode,
  type EventSchemaCode,
  EventSchemaError,
  type EventSchemaIssue,
} from './errors.js';
