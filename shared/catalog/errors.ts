import type { StandardSchemaV1 } from '@standard-schema/spec';
import { OutboxError } from '../errors.js';
import { refusalHeading } from '../refusal-heading.js';

/** Codes of {@link EventSchemaError}: an event the catalog refuses, before any request. */
export type EventSchemaCode =
  /** The event's `data` failed the schema of its type's version. */
  | 'EVENT_DATA_INVALID'
  /** `eventTypes` does not declare the event's type, and `undeclaredEventTypes` is `'reject'`. */
  | 'EVENT_TYPE_UNDECLARED'
  /** The type's declaration names another `aggregateType` than the event's aggregate. */
  | 'EVENT_AGGREGATE_MISMATCH';

/** At most this many issues are listed in a message, each cut to {@link MAX_ISSUE_CHARACTERS}. */
const MAX_ISSUES = 5;
const MAX_ISSUE_CHARACTERS = 200;

/** One issue of a schema, as an {@link EventSchemaError} lists it: where in `data`, and what. */
export interface EventSchemaIssue {
  /** Dotted path into `data` (`items.0.sku`); empty for `data` itself. */
  readonly path: string;
  readonly message: string;
}

/** A schema's issues as {@link EventSchemaIssue}s; never throws (issues come from the schema and may hold anything). */
export function schemaIssues(issues: readonly StandardSchemaV1.Issue[]): EventSchemaIssue[] {
  return issues.map((issue) => {
    try {
      const path = (issue.path ?? []).map((segment) => String(typeof segment === 'object' ? segment.key : segment)).join('.');
      return { path, message: String(issue.message) };
    } catch {
      return { path: '', message: '(an issue that cannot be shown)' };
    }
  });
}

/** Issues in words, bounded: the first {@link MAX_ISSUES}, each cut to {@link MAX_ISSUE_CHARACTERS} characters. */
export function describeIssues(issues: readonly EventSchemaIssue[]): string {
  const shown = issues.slice(0, MAX_ISSUES).map(({ path, message }) => {
    const text = path === '' ? message : `${path}: ${message}`;
    return text.length > MAX_ISSUE_CHARACTERS ? `${text.slice(0, MAX_ISSUE_CHARACTERS)}…` : text;
  });
  const more = issues.length - shown.length;
  return `${shown.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

/**
 * The write helper refused an event by the config's event catalog (`eventTypes`); nothing was
 * written. `code` says why; `eventType`, `version` (of the schema it failed) and `issues` say what.
 *
 * @example
 * ```ts
 * try {
 *   await outbox.write({ events: [{ aggregate: { type: 'order', id }, type: 'order.placed', data }] });
 * } catch (error) {
 *   if (error instanceof EventSchemaError && error.code === 'EVENT_DATA_INVALID') return badRequest(error.issues);
 *   throw error;
 * }
 * ```
 */
export class EventSchemaError extends OutboxError {
  declare readonly code: EventSchemaCode;
  /** Index of the event in the write's `events`. */
  readonly index: number;
  readonly eventType: string;
  /** The declared version whose schema the data failed; `undefined` for an undeclared type. */
  readonly version: number | undefined;
  /** The schema's issues, all of them (the message lists the first few). */
  readonly issues: readonly EventSchemaIssue[];

  constructor(
    code: EventSchemaCode,
    message: string,
    event: { readonly index: number; readonly type: string; readonly version?: number; readonly issues?: readonly EventSchemaIssue[] },
    options?: ErrorOptions,
  ) {
    super(code, message, options);
    this.name = 'EventSchemaError';
    this.index = event.index;
    this.eventType = event.type;
    this.version = event.version;
    this.issues = event.issues ?? [];
  }
}

/** Codes of {@link CatalogError}. */
export type CatalogErrorCode =
  /** The command line or the options of a catalog function are invalid. */
  | 'INVALID_CATALOG_OPTIONS'
  /** The published catalog to check against is not an AsyncAPI document `dynamodb-outbox catalog` wrote. */
  | 'INVALID_PUBLISHED_CATALOG'
  /** A declared schema's JSON Schema, as its converter answers it, is malformed: the document cannot carry it. */
  | 'INVALID_EVENT_SCHEMA';

/**
 * How a refusal names its field: the command as a command, what else of the command line is at
 * fault as {@link refusalHeading} words it (`option`, `argument`, `line`), a flag as an
 * option, a path as a place in the published document.
 */
function fieldPhrase(code: CatalogErrorCode, field: string): string {
  if (code === 'INVALID_PUBLISHED_CATALOG') return `Invalid published catalog at ${field}`;
  if (code === 'INVALID_EVENT_SCHEMA') return `Invalid event schema at ${field}`;
  return refusalHeading('catalog', field, { command: () => 'Invalid catalog command' });
}

/**
 * A catalog command or function was given something it cannot use; `field` names it (`command`
 * for the command's words, `option` for an option it does not know, `line` for anything else wrong
 * with the command line, a flag such as `--published`, or a path into the published document).
 *
 * @example
 * ```ts
 * try {
 *   checkCatalog(JSON.parse(text), config);
 * } catch (error) {
 *   if (error instanceof CatalogError) console.error(error.field, error.message);
 * }
 * ```
 */
export class CatalogError extends OutboxError {
  declare readonly code: CatalogErrorCode;
  readonly field: string;

  constructor(code: CatalogErrorCode, field: string, message: string, options?: ErrorOptions) {
    super(code, `${fieldPhrase(code, field)}: ${message}`, options);
    this.name = 'CatalogError';
    this.field = field;
  }
}
