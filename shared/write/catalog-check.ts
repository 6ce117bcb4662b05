/**
 * The write helper's side of the event catalog: each event's `data` checked against the schema
 * of its type's newest declared version, and that version named in the stored event, which the
 * relay publishes as the envelope's `dataschema`. Called only for a config with `eventTypes`.
 */

import type { StandardSchemaV1 } from '@standard-schema/spec';
import { describeIssues, EventSchemaError, schemaIssues } from '../catalog/errors.js';
import { dataschemaOf, type EventTypeDeclaration } from '../catalog/event-types.js';
import type { OutboxConfig } from '../config.js';
import type { EventInput } from './types.js';

/** The version the write helper writes an event type as: its newest declared one. */
export function writtenVersion(config: OutboxConfig, type: string): EventTypeDeclaration | undefined {
  const versions = config.eventTypes !== undefined && Object.hasOwn(config.eventTypes, type) ? config.eventTypes[type] : undefined;
  return versions?.[versions.length - 1];
}

/**
 * The fields a stored event gets from the catalog: the `dataschema` of the version it is written
 * as, none for an undeclared type.
 */
export function catalogFields(config: OutboxConfig, type: string): { readonly dataschema?: string } | undefined {
  const declared = writtenVersion(config, type);
  return declared === undefined ? undefined : { dataschema: dataschemaOf(config.source, type, declared.version) };
}

const invalid = (index: number, type: string, version: number, result: StandardSchemaV1.FailureResult): EventSchemaError => {
  const issues = schemaIssues(result.issues);
  return new EventSchemaError(
    'EVENT_DATA_INVALID',
    `events[${index}].data does not match the schema of ${JSON.stringify(type)} version ${version}: ${describeIssues(issues)}; allowed: data the schema accepts (nothing was written)`,
    { index, type, version, issues },
  );
};

const threw = (index: number, type: string, version: number, error: unknown): EventSchemaError => {
  const reason = error instanceof Error ? error.message : String(error);
  return new EventSchemaError(
    'EVENT_DATA_INVALID',
    `events[${index}].data made the schema of ${JSON.stringify(type)} version ${version} throw (${reason}); allowed: data the schema accepts (nothing was written)`,
    { index, type, version, issues: [{ path: '', message: `the schema threw: ${reason}` }] },
    { cause: error },
  );
};

/**
 * Checks each event against the catalog, in order: a type the catalog does not declare is
 * refused under `undeclaredEventTypes: 'reject'`, one on another aggregate type than its
 * declaration names is refused, and `data` must pass the newest version's schema. Throws an
 * {@link EventSchemaError} at once when every schema answers synchronously; returns a promise
 * of the same when one answers with a promise (then the first failing event, by index, is the
 * one reported). Events the helper's own checks refuse (no type, no aggregate) are left to them.
 */
export function checkEventCatalog(events: readonly EventInput[], config: OutboxConfig): Promise<void> | undefined {
  const pending: Promise<EventSchemaError | undefined>[] = [];
  for (let index = 0; index < events.length; index++) {
    const event = events[index] as EventInput | undefined;
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string') continue;
    const { type } = event;
    const declared = writtenVersion(config, type);
    if (declared === undefined) {
      if (config.undeclaredEventTypes === 'allow') continue;
      const known = Object.keys(config.eventTypes ?? {});
      throw new EventSchemaError(
        'EVENT_TYPE_UNDECLARED',
        `events[${index}].type ${JSON.stringify(type)} is not declared in the config's eventTypes; allowed: ${known.map((t) => JSON.stringify(t)).join(', ')} (or undeclaredEventTypes: "allow" to write undeclared types unchecked)`,
        { index, type },
      );
    }
    const aggregateType = event.aggregate?.type;
    if (declared.aggregateType !== undefined && typeof aggregateType === 'string' && aggregateType !== declared.aggregateType) {
      throw new EventSchemaError(
        'EVENT_AGGREGATE_MISMATCH',
        `events[${index}] of type ${JSON.stringify(type)} is on aggregate type ${JSON.stringify(aggregateType)}; allowed: ${JSON.stringify(declared.aggregateType)}, as its declaration (version ${declared.version}) says`,
        { index, type, version: declared.version },
      );
    }
    if (declared.schema === undefined) continue;
    let result: StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>;
    try {
      result = declared.schema['~standard'].validate(event.data);
    } catch (error) {
      throw threw(index, type, declared.version, error);
    }
    if (typeof (result as { then?: unknown }).then === 'function') {
      const { version } = declared;
      pending.push(
        Promise.resolve(result).then(
          (settled) => (settled.issues === undefined ? undefined : invalid(index, type, version, settled)),
          (error: unknown) => threw(index, type, version, error),
        ),
      );
    } else if ((result as StandardSchemaV1.Result<unknown>).issues !== undefined) {
      throw invalid(index, type, declared.version, result as StandardSchemaV1.FailureResult);
    }
  }
  if (pending.length === 0) return undefined;
  return Promise.all(pending).then((errors) => {
    const first = errors.find((error) => error !== undefined);
    if (first !== undefined) throw first;
  });
}
