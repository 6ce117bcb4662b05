/**
 * A walk over a caller's value that never recurses and stops at DynamoDB's nesting limit, so a
 * value nested deeper than any write can hold (or a cycle, which is infinitely deep) is found
 * after at most {@link MAX_NESTING_LEVELS} levels of it are read, however deep it goes: no
 * stack overflow, and no work that grows with the depth beyond the limit.
 */

import { WriteValidationError } from '../errors.js';

/**
 * DynamoDB's limit for an attribute value: 32 levels, the value itself being level 1 and the
 * members of a map or list one level below it. A map or list may therefore not stand on
 * level 32, even empty: at most 31 maps or lists one inside another.
 */
export const MAX_NESTING_LEVELS = 32;

/** A value met on the walk and how it was reached; its path is spelt only for a message. */
export interface Step {
  readonly value: unknown;
  readonly parent: Step | undefined;
  /** How the parent leads to it: `.name` or `[index]`; the whole path for the root. */
  readonly segment: string;
  /** 1 for the root. */
  readonly level: number;
}

/**
 * What `inspect` says of a value: the members to walk when it is a map or list, a problem (the
 * walk stops), or nothing to walk. A member's segment is `.name` or `[index]`.
 */
export type Inspection =
  | { readonly members: Iterable<readonly [segment: string, value: unknown]> }
  | { readonly problem: string }
  | undefined;

/** Why a walk stopped: a problem `inspect` reported, a cycle, or a map or list too deep. */
export type WalkProblem =
  | { readonly kind: 'invalid'; readonly step: Step; readonly problem: string }
  | { readonly kind: 'cycle'; readonly step: Step }
  | { readonly kind: 'too-deep'; readonly step: Step };

/**
 * Walks `root` depth first, members in order, calling `inspect` on each value once, and returns
 * the first problem: one `inspect` reports, a map or list that contains itself (a cycle), or a
 * map or list on level {@link MAX_NESTING_LEVELS}. Work is linear in the values read: each
 * map or list is also compared with its at most 31 ancestors.
 */
export function walkNested(root: unknown, rootPath: string, inspect: (value: unknown) => Inspection): WalkProblem | undefined {
  const pending: Step[] = [{ value: root, parent: undefined, segment: rootPath, level: 1 }];
  for (let step = pending.pop(); step !== undefined; step = pending.pop()) {
    const inspection = inspect(step.value);
    if (inspection === undefined) continue;
    if ('problem' in inspection) return { kind: 'invalid', step, problem: inspection.problem };
    for (let ancestor = step.parent; ancestor !== undefined; ancestor = ancestor.parent) {
      if (ancestor.value === step.value) return { kind: 'cycle', step };
    }
    if (step.level >= MAX_NESTING_LEVELS) return { kind: 'too-deep', step };
    const members: Step[] = [];
    for (const [segment, value] of inspection.members) members.push({ value, parent: step, segment, level: step.level + 1 });
    // Reversed onto the stack, so members are visited in their order.
    for (let i = members.length - 1; i >= 0; i--) pending.push(members[i] as Step);
  }
  return undefined;
}

/** The longest part of a member name a path spells out: names may be up to 64 KB. */
const SEGMENT_CHARACTERS = 40;

/** The member segment of a name: `.name`, or `["name"]` when the name is not a plain identifier. */
export function nameSegment(name: string): string {
  const shown = name.length > SEGMENT_CHARACTERS ? `${name.slice(0, SEGMENT_CHARACTERS)}…` : name;
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `.${shown}` : `[${JSON.stringify(shown)}]`;
}

/** The path of a step, from the root's path through each segment. */
export function pathOf(step: Step): string {
  const segments: string[] = [];
  for (let at: Step | undefined = step; at !== undefined; at = at.parent) segments.push(at.segment);
  return segments.reverse().join('');
}

/** What is allowed, in the words of a message. */
export const NESTING_ALLOWED = `at most ${MAX_NESTING_LEVELS} levels of nesting (DynamoDB's limit for an attribute value: the value is level 1 and each map or list holds the next level, so at most ${MAX_NESTING_LEVELS - 1} maps or lists one inside another)`;

/**
 * The message of a container on the last level: `containers` names them as the caller knows
 * them (`maps or lists`, `objects or arrays`).
 */
export function tooDeepMessage(rootPath: string, step: Step, containers: string): string {
  return `${rootPath} nests ${containers} ${MAX_NESTING_LEVELS} deep or deeper (one stands on level ${MAX_NESTING_LEVELS}, at ${pathOf(step)}); allowed: ${NESTING_ALLOWED}`;
}

/** The members of JSON data, as `JSON.stringify` reads them: arrays, and plain objects. */
function jsonMembers(value: unknown): Inspection {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) return { members: Array.from(value, (member, i) => [`[${i}]`, member] as const) };
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  return { members: Object.entries(value).map(([name, member]) => [nameSegment(name), member] as const) };
}

/**
 * Refuses event data nested deeper than an attribute value may be (consumers commonly store an
 * event's data, or parts of it, as attributes of their own items), or cyclic, before it is
 * walked recursively; its other problems are found by that walk.
 */
export function checkDataNesting(data: unknown, path: string): void {
  const found = walkNested(data, path, jsonMembers);
  if (found?.kind === 'too-deep') throw new WriteValidationError('NESTED_TOO_DEEP', tooDeepMessage(path, found.step, 'objects or arrays'));
  if (found?.kind === 'cycle') {
    throw new WriteValidationError(
      'DATA_NOT_SERIALIZABLE',
      `${pathOf(found.step)} refers back to one of its parents (a cycle); allowed: JSON data (plain objects, arrays, strings, finite numbers, booleans, null)`,
    );
  }
}
