/**
 * W3C trace context as the outbox carries it (`traceparent`, `tracestate`), and where the write
 * helper finds the caller's when the caller passes none: the active OpenTelemetry span, else the
 * Lambda X-Ray trace header.
 */

import { type OtelApi, otelApi } from './otel-api.js';

/** A W3C trace context: the `traceparent` header and, when there is one, the `tracestate` header. */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/** Every rule {@link traceparentProblem} checks, as an error message says what is allowed. */
export const TRACEPARENT_RULES =
  'a W3C traceparent "<version>-<trace id>-<parent id>-<flags>" such as "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01": ' +
  'lower-case hex of 2, 32, 16 and 2 digits, version not ff, trace id and parent id not all zeros, ' +
  "nothing after the flags for version 00, and after a later version's flags nothing or a dash and visible ASCII (! to ~)";

const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_PARENT_ID = '0'.repeat(16);
const DASH = 0x2d;

/** Whether `text` holds `length` lower-case hex digits from `from` on (none past its end). */
function isLowerHex(text: string, from: number, length: number): boolean {
  if (from + length > text.length) return false;
  for (let i = from; i < from + length; i++) {
    // 0-9 or a-f, each range as one unsigned comparison: this runs on every event's traceparent.
    const code = text.charCodeAt(i);
    if ((code - 0x30) >>> 0 > 9 && (code - 0x61) >>> 0 > 5) return false;
  }
  return true;
}

/**
 * Why `traceparent` is not W3C trace context, or `undefined` when it is: version `ff` is invalid,
 * an all-zero trace id or parent id is invalid, and only versions after 00 may append fields
 * after the flags (W3C, "Versioning of traceparent"). What they append is visible ASCII, as in an
 * HTTP header: anything else came from no header. The rules are these alone: {@link isTraceparent}
 * is this finding none.
 */
export function traceparentProblem(traceparent: unknown): string | undefined {
  if (typeof traceparent !== 'string') return 'it is not a string';
  if (!isLowerHex(traceparent, 0, 2) || traceparent.charCodeAt(2) !== DASH) return 'its version is not 2 lower-case hex digits and a dash';
  if (traceparent.startsWith('ff')) return 'version ff is invalid';
  if (!isLowerHex(traceparent, 3, 32) || traceparent.charCodeAt(35) !== DASH)
    return 'its trace id is not 32 lower-case hex digits and a dash';
  if (traceparent.startsWith(ZERO_TRACE_ID, 3)) return 'its trace id is all zeros';
  if (!isLowerHex(traceparent, 36, 16) || traceparent.charCodeAt(52) !== DASH)
    return 'its parent id is not 16 lower-case hex digits and a dash';
  if (traceparent.startsWith(ZERO_PARENT_ID, 36)) return 'its parent id is all zeros';
  if (!isLowerHex(traceparent, 53, 2)) return 'its flags are not 2 lower-case hex digits';
  if (traceparent.length === 55) return undefined;
  if (traceparent.startsWith('00')) return 'version 00 has nothing after the flags';
  if (traceparent.charCodeAt(55) !== DASH) return `its flags are followed by ${JSON.stringify(traceparent.slice(55, 56))}, not a dash`;
  for (let i = 56; i < traceparent.length; i++) {
    const code = traceparent.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) {
      // The character whole: both halves of a surrogate pair, a lone surrogate alone.
      const shown = String.fromCodePoint(traceparent.codePointAt(i) ?? code);
      return `after its flags it has ${JSON.stringify(shown)}, which is not visible ASCII`;
    }
  }
  return undefined;
}

/** Whether `traceparent` is W3C trace context: one {@link traceparentProblem} finds nothing wrong with. */
export const isTraceparent = (traceparent: unknown): traceparent is string => traceparentProblem(traceparent) === undefined;

/**
 * The trace context the write helper sends on for an event's own `traceparent` (one
 * {@link isTraceparent} accepts) and `tracestate` (one {@link tracestateProblem} takes), as
 * W3C asks of a participant that forwards them. A later version is sent as version `00`, the
 * highest this implementation knows, from its trace id, parent id and sampled flag, whatever
 * follows its flags left out ("Versioning of traceparent": "Vendors MUST use these fields to
 * construct the new traceparent field according to the highest version of the specification
 * known to the implementation"); version 00 is sent as given. A `tracestate` without list
 * members is left out ("Vendors MUST accept empty tracestate headers but SHOULD avoid sending
 * them"); any other is sent as given.
 */
export function forwardedTraceContext(traceparent: string, tracestate?: string): TraceContext {
  const sampled = (Number.parseInt(traceparent.slice(53, 55), 16) & 1) === 1;
  const sent = traceparent.startsWith('00-') ? traceparent : `00-${traceparent.slice(3, 52)}-${sampled ? '01' : '00'}`;
  return tracestate === undefined || NO_MEMBERS.test(tracestate) ? { traceparent: sent } : { traceparent: sent, tracestate };
}

/** A `tracestate` {@link tracestateMembers} finds no member in: commas, spaces and tabs only. */
const NO_MEMBERS = /^[ \t,]*$/;

/**
 * A `tracestate` as it is passed on with its `traceparent` (a message attribute, a span's trace
 * state): as given when it is W3C trace state with at least one list member; `undefined` for a
 * value that is not (another publisher's envelope may hold anything), and for one without members
 * (`""`, `" , "`), which W3C says a vendor SHOULD avoid sending.
 *
 * @example
 * ```ts
 * tracestateToPass('vendor=a'); // 'vendor=a'
 * tracestateToPass(' , '); // undefined
 * ```
 */
export function tracestateToPass(tracestate: unknown): string | undefined {
  if (typeof tracestate !== 'string' || NO_MEMBERS.test(tracestate)) return undefined;
  return tracestateProblem(tracestate) === undefined ? tracestate : undefined;
}

/** The longest `tracestate` carried: W3C's floor for what every system propagates, and OpenTelemetry's own limit. */
export const MAX_TRACESTATE_LENGTH = 512;
/** W3C's limit of list members in a `tracestate`. */
const MAX_TRACESTATE_MEMBERS = 32;
// Plain groups and `-` last in a class, no escape but \xHH: the regular expression subset JSON
// Schema recommends, so that TRACESTATE_PATTERN is these very rules.
const TRACESTATE_KEY = '([a-z][_0-9a-z*/-]{0,255}|[a-z0-9][_0-9a-z*/-]{0,240}@[a-z][_0-9a-z*/-]{0,13})';
const TRACESTATE_VALUE = '[\\x20-\\x2b\\x2d-\\x3c\\x3e-\\x7e]{0,255}[\\x21-\\x2b\\x2d-\\x3c\\x3e-\\x7e]';
const TRACESTATE_MEMBER = new RegExp(`^${TRACESTATE_KEY}=${TRACESTATE_VALUE}$`);
/** A comma-separated part with a member: the member, spaces and tabs around it. */
const MEMBER_PART = `[ \t]*${TRACESTATE_KEY}=${TRACESTATE_VALUE}[ \t]*`;
/** Empty parts after a member: commas, spaces and tabs. */
const EMPTY_PARTS = '(,[ \t]*)*';

/**
 * Every rule of {@link tracestateProblem} but the length and distinct keys, as one regular
 * expression without lookahead or back-references (the subset JSON Schema recommends, which
 * validators outside JavaScript hold to): empty parts anywhere, and at most 32 parts of a
 * key=value member, spaces and tabs around each. Distinct keys take a back-reference, so the
 * catalog's schema says them in words.
 */
export const TRACESTATE_PATTERN = `^([ \t]*,)*([ \t]*|${MEMBER_PART}${EMPTY_PARTS}(,${MEMBER_PART}${EMPTY_PARTS}){0,${MAX_TRACESTATE_MEMBERS - 1}})$`;

/**
 * The members of a `tracestate`, each trimmed, or why it is not W3C trace state, whatever its
 * length and count. An empty one, and empty members (",,", spaces only), are allowed and skipped,
 * as W3C says; spaces and tabs around a member are no part of it.
 */
function tracestateMembers(tracestate: string): { members: string[] } | { problem: string } {
  const members = tracestate
    .split(',')
    .map((member) => member.replace(/^[ \t]+|[ \t]+$/g, ''))
    .filter((member) => member !== '');
  const malformed = members.find((member) => !TRACESTATE_MEMBER.test(member));
  if (malformed !== undefined) return { problem: `its member ${JSON.stringify(malformed.slice(0, 60))} is not key=value` };
  // One pass over the keys: a span's trace state, unlike an event's, has no length limit here.
  const seen = new Set<string>();
  for (const member of members) {
    const key = member.slice(0, member.indexOf('='));
    if (seen.has(key)) return { problem: `its key ${JSON.stringify(key)} appears twice` };
    seen.add(key);
  }
  return { members };
}

/** Why a `tracestate` is not W3C trace state the outbox carries, or `undefined` when it is (an empty one is). */
export function tracestateProblem(tracestate: string): string | undefined {
  if (tracestate.length > MAX_TRACESTATE_LENGTH) return `it is ${tracestate.length} characters long`;
  const parsed = tracestateMembers(tracestate);
  if ('problem' in parsed) return parsed.problem;
  return parsed.members.length > MAX_TRACESTATE_MEMBERS ? `it has ${parsed.members.length} list members` : undefined;
}

/** W3C's size of a member removed first when a `tracestate` is cut. */
const LONG_TRACESTATE_MEMBER = 128;

/**
 * A `tracestate` read from a span, as the outbox carries it: cut to {@link MAX_TRACESTATE_LENGTH}
 * characters and 32 members as W3C says, by whole members, those over 128 characters first, then
 * from the end; `undefined` when it is not W3C trace state (a vendor must not pass on one it
 * cannot parse) or nothing is left.
 */
function carriedTracestate(tracestate: string): string | undefined {
  const parsed = tracestateMembers(tracestate);
  if ('problem' in parsed) return undefined;
  const members = parsed.members.slice(0, MAX_TRACESTATE_MEMBERS);
  const length = () => members.reduce((sum, member) => sum + member.length, members.length - 1);
  while (members.length > 0 && length() > MAX_TRACESTATE_LENGTH) {
    const long = members.findLastIndex((member) => member.length > LONG_TRACESTATE_MEMBER);
    members.splice(long === -1 ? members.length - 1 : long, 1);
  }
  return members.length === 0 ? undefined : members.join(',');
}

/** The Lambda runtime's X-Ray trace header of the current invocation. */
export const XRAY_TRACE_ENV = '_X_AMZN_TRACE_ID';

const XRAY_ROOT = /^1-([0-9a-f]{8})-([0-9a-f]{24})$/;
const XRAY_PARENT = /^[0-9a-f]{16}$/;

/**
 * The X-Ray trace header (`Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1`,
 * fields in any order, `Lineage=` and others ignored) as a W3C `traceparent`: the root's time and
 * id make the 32-hex trace id, `Parent` the parent id, `Sampled=1` the flag `01` (anything else,
 * `?` included, `00`). A header without a well-formed root or parent gives `undefined`.
 *
 * @example
 * ```ts
 * xrayTraceparent('Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1');
 * // '00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01'
 * ```
 */
export function xrayTraceparent(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  const fields = new Map<string, string>();
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) fields.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  const root = XRAY_ROOT.exec(fields.get('Root') ?? '');
  const parent = fields.get('Parent') ?? '';
  if (root === null || !XRAY_PARENT.test(parent)) return undefined;
  const traceparent = `00-${root[1]}${root[2]}-${parent}-${fields.get('Sampled') === '1' ? '01' : '00'}`;
  // An all-zero id is no trace context.
  return isTraceparent(traceparent) ? traceparent : undefined;
}

/**
 * The active span's context, when a context manager is registered and the span context is valid:
 * its ids in lower case (OpenTelemetry takes upper-case hex, W3C does not), its trace state as
 * {@link carriedTracestate} leaves it.
 */
function otelContext(api: OtelApi | undefined): TraceContext | undefined {
  const span = api?.trace.getSpanContext(api.context.active());
  if (api === undefined || span === undefined || !api.isSpanContextValid(span)) return undefined;
  const flags = (span.traceFlags & api.TraceFlags.SAMPLED) === api.TraceFlags.SAMPLED ? '01' : '00';
  const traceparent = `00-${span.traceId.toLowerCase()}-${span.spanId.toLowerCase()}-${flags}`;
  if (!isTraceparent(traceparent)) return undefined;
  const serialized = span.traceState?.serialize();
  const state = serialized ? carriedTracestate(serialized) : undefined;
  return { traceparent, ...(state === undefined ? {} : { tracestate: state }) };
}

function xrayContext(env: NodeJS.ProcessEnv): TraceContext | undefined {
  const traceparent = xrayTraceparent(env[XRAY_TRACE_ENV]);
  return traceparent === undefined ? undefined : { traceparent };
}

/**
 * The caller's trace context, for events that carry none of their own: the active OpenTelemetry
 * span's when `@opentelemetry/api` is installed, a context manager is registered and a valid span
 * is active; else the X-Ray header's; else none. At once, except on the first call that loads the
 * API (a promise then).
 */
export function ambientTraceContext(env: NodeJS.ProcessEnv = process.env): TraceContext | undefined | Promise<TraceContext | undefined> {
  const api = otelApi('context');
  if (api instanceof Promise) return api.then((loaded) => otelContext(loaded) ?? xrayContext(env));
  return otelContext(api) ?? xrayContext(env);
}
