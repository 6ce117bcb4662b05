/**
 * The write helper's side of the event catalog: each event's `data` checked against the schema
 * of the version it is written as (the one its `version` names, else its type's newest declared
 * one, {@link writtenVersion}), which planning names in the stored event (the relay publishes it
 * as the envelope's `dataschema`) and in the write's result. Called only for a config with
 * `eventTypes`, except {@link checkEventVersion}, which planning calls for every event.
 */

import type { StandardSchemaV1 } from '@standard-schema/spec';
import { describeIssues, EventSchemaError, schemaIssues } from '../catalog/errors.js';
import type { OutboxConfig } from '../config.js';
import { WriteValidationError } from '../errors.js';
import type { EventTypeDeclaration } from '../event-types.js';
import { showValue } from '../show-value.js';
import type { EventInput } from './types.js';

const declaredVersions = (config: OutboxConfig, type: string): readonly EventTypeDeclaration[] | undefined =>
  config.eventTypes !== undefined && Object.hasOwn(config.eventTypes, type) ? config.eventTypes[type] : undefined;

/**
 * The version the write helper writes an event as: the declared one its `version` names, else
 * its type's newest declared one; `undefined` for an undeclared type (or an undeclared version,
 * which {@link checkEventVersion} refuses first).
 */
export function writtenVersion(config: OutboxConfig, type: string, version?: number): EventTypeDeclaration | undefined {
  const versions = declaredVersions(config, type);
  return version === undefined ? versions?.[versions.length - 1] : versions?.find((declared) => declared.version === version);
}

/**
 * Refuses an event's `version` that names no version the config declares for its type: not a
 * positive whole number, not among the type's versions, or given with a config that declares no
 * versions at all. Writing it anyway would publish a `dataschema` no consumer's catalog knows.
 * A version on a type a catalog does not declare is left to {@link checkEventCatalog}, which
 * alone decides what an undeclared type means.
 */
export function checkEventVersion(event: EventInput, index: number, config: OutboxConfig): void {
  const { version } = event;
  if (version === undefined) return;
  if (config.eventTypes === undefined) throw noVersionToName(index, version, 'the config declares no eventTypes');
  const versions = declaredVersions(config, event.type);
  if (versions === undefined || versions.some((declared) => declared.version === version)) return;
  const numbers = versions.map((declared) => declared.version);
  const why = typeof version === 'number' && Number.isSafeInteger(version) && version > 0 ? 'not declared' : 'not a positive whole number';
  throw new WriteValidationError(
    'INVALID_EVENT_VERSION',
    `${givenVersion(index, version)} (${why}); allowed: a version eventTypes declares for ${JSON.stringify(event.type)} (${numbers.join(', ')}), or leave version out for the newest (${numbers[numbers.length - 1]})`,
  );
}

const givenVersion = (index: number, version: unknown): string =>
  `events[${index}].version is ${typeof version === 'number' ? String(version) : showValue(version)}`;

const noVersionToName = (index: number, version: unknown, why: string): WriteValidationError =>
  new WriteValidationError(
    'INVALID_EVENT_VERSION',
    `${givenVersion(index, version)}, but ${why}, so there is no version to name; allowed: leave version out (or declare the type's versions in eventTypes)`,
  );

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
 * declaration names is refused, and `data` must pass the schema of the version it is written as
 * (planning the write refused a `version` no declaration of a declared type names,
 * {@link checkEventVersion}); a `version` on an undeclared type is refused too, with
 * `INVALID_EVENT_VERSION` under `'allow'`. Throws an
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
    const declared = writtenVersion(config, type, event.version);
    if (declared === undefined) {
      // The type is the fault under 'reject', with or without a version; under 'allow' it is
      // written unchecked, so a version given has nothing to name.
      if (config.undeclaredEventTypes === 'allow') {
        if (event.version === undefined) continue;
        throw noVersionToName(index, event.version, `the config's eventTypes does not declare ${JSON.stringify(type)}`);
      }
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
