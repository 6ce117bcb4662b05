/**
 * `catalog check`: the current config's catalog against the last published document. Within a
 * declared (type, version) only additive changes are allowed; a breaking one is a new version
 * declared beside the old, and removing a published (type, version) is itself breaking.
 */

import type { OutboxConfig } from '../config.js';
import { pointerSegment } from '../json-schema/convert.js';
import type { BreakingChange } from '../json-schema/keywords.js';
import { showValue } from '../show-value.js';
import { type CatalogEventEntry, catalogDocument, EVENT_EXTENSION } from './asyncapi.js';
import { CatalogError } from './errors.js';
import { SchemaDiff } from './schema-diff.js';

/**
 * What {@link checkCatalog} found: `compatible` (possibly with versions added), or `breaking` with
 * each breaking change.
 */
export type CatalogCheckResult =
  | {
      readonly status: 'compatible';
      /** Published (type, version)s still declared and not broken. */
      readonly kept: number;
      /** (type, version)s the config declares that the published document does not have. */
      readonly added: readonly { readonly type: string; readonly version: number }[];
      readonly warnings: readonly string[];
    }
  | {
      readonly status: 'breaking';
      readonly kept: number;
      readonly added: readonly { readonly type: string; readonly version: number }[];
      readonly changes: readonly BreakingChange[];
      readonly warnings: readonly string[];
    };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The (type, version)s of a catalog document, each with its message id. */
function entriesOf(document: unknown, published: boolean): Map<string, { readonly id: string; readonly entry: CatalogEventEntry }> {
  const refuse = (field: string, problem: string) => new CatalogError('INVALID_PUBLISHED_CATALOG', field, problem);
  if (!isRecord(document) || document.asyncapi !== '3.0.0') {
    throw refuse(
      '/asyncapi',
      `got ${isRecord(document) ? showValue(document.asyncapi) : 'no JSON object'}; allowed: an AsyncAPI 3.0.0 document that dynamodb-outbox catalog wrote`,
    );
  }
  const messages = isRecord(document.components) ? document.components.messages : undefined;
  if (!isRecord(messages)) throw refuse('/components/messages', 'is missing; allowed: the messages dynamodb-outbox catalog writes');
  const entries = new Map<string, { id: string; entry: CatalogEventEntry }>();
  for (const [id, message] of Object.entries(messages)) {
    const entry = isRecord(message) ? message[EVENT_EXTENSION] : undefined;
    const field = `/components/messages/${pointerSegment(id)}/${EVENT_EXTENSION}`;
    if (!isRecord(entry) || typeof entry.type !== 'string' || typeof entry.version !== 'number' || typeof entry.dataschema !== 'string') {
      if (published)
        throw refuse(
          field,
          `got ${entry === undefined ? 'nothing' : showValue(entry)}; allowed: { type, version, dataschema, … } as dynamodb-outbox catalog writes it`,
        );
      continue;
    }
    entries.set(`${entry.type}\u0000${entry.version}`, { id, entry: entry as unknown as CatalogEventEntry });
  }
  return entries;
}

/**
 * Compares the config's event catalog with a previously published AsyncAPI document (one
 * {@link catalogDocument} wrote): a published (type, version) removed, its aggregate type or
 * dataschema changed, or its data schema narrowed (a property removed or newly required, a type
 * changed, an enum value removed, `additionalProperties` tightened, a bound tightened …) is a
 * breaking change, listed with its JSON pointer in the published document. New types and new
 * versions are not. Throws a {@link CatalogError} when `published` is not such a document, or
 * `config` one `defineConfig` would refuse.
 *
 * @example
 * ```ts
 * const result = checkCatalog(JSON.parse(await readFile('asyncapi.json', 'utf8')), config);
 * if (result.status === 'breaking') for (const c of result.changes) console.error(`${c.pointer}: ${c.message}`);
 * ```
 */
export function checkCatalog(published: unknown, config: OutboxConfig): CatalogCheckResult {
  const before = entriesOf(published, true);
  const { document: current, warnings } = catalogDocument(config);
  const now = entriesOf(current, false);
  const diff = new SchemaDiff(published, current);
  const changes: BreakingChange[] = [];
  let kept = 0;
  for (const [key, { id, entry }] of before) {
    const at = `/components/messages/${pointerSegment(id)}`;
    const found = (pointer: string, kind: BreakingChange['kind'], message: string) =>
      changes.push({ type: entry.type, version: entry.version, pointer, kind, message });
    const counterpart = now.get(key);
    if (counterpart === undefined) {
      found(
        at,
        'version-removed',
        `${entry.type} version ${entry.version} is no longer declared; keep it declared while any consumer may still receive it`,
      );
      continue;
    }
    const before = changes.length;
    const next = counterpart.entry;
    if (next.aggregateType !== entry.aggregateType) {
      found(
        `${at}/${EVENT_EXTENSION}/aggregateType`,
        'aggregate-type-changed',
        `aggregate type changed from ${JSON.stringify(entry.aggregateType ?? 'any')} to ${JSON.stringify(next.aggregateType ?? 'any')}, which moves its events to other topics`,
      );
    }
    if (next.dataschema !== entry.dataschema) {
      found(
        `${at}/${EVENT_EXTENSION}/dataschema`,
        'dataschema-changed',
        `dataschema changed from ${JSON.stringify(entry.dataschema)} to ${JSON.stringify(next.dataschema)} (the config's source changed), so consumers no longer find this version by it`,
      );
    }
    if (entry.schema !== undefined) {
      if (next.schema === undefined) {
        found(
          `${at}/payload/properties/data`,
          'schema-unverifiable',
          `the published version has a JSON Schema for data and the current one has none, so no change can be checked: ${warnings.find((w) => w.startsWith(`${entry.type} version ${entry.version}:`)) ?? 'no schema'}`,
        );
      } else {
        for (const change of diff.compare(entry.schema, next.schema)) changes.push({ type: entry.type, version: entry.version, ...change });
      }
    }
    if (changes.length === before) kept++;
  }
  const added = [...now.values()]
    .filter(({ entry }) => !before.has(`${entry.type}\u0000${entry.version}`))
    .map(({ entry }) => ({ type: entry.type, version: entry.version }));
  return changes.length === 0 ? { status: 'compatible', kept, added, warnings } : { status: 'breaking', kept, added, changes, warnings };
}
