import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { OutboxEnvelope } from '../envelope.js';
import { MessageRejectedError } from './errors.js';
import { jsonExcerpt } from './limits.js';
import type { MessageOutcome } from './types.js';

export const rejected = (messageId: string, error: MessageRejectedError): MessageOutcome => ({ status: 'rejected', messageId, error });

/** How many of a schema's issues a rejection's reason lists. */
const SHOWN_ISSUES = 5;

/** The schema's first issues as text, and how many more there were; never throws (issues come from the schema, and may hold anything), so a rejection stays one. */
function describeIssues(issues: readonly StandardSchemaV1.Issue[]): string {
  try {
    const shown = issues.slice(0, SHOWN_ISSUES).map((issue) => {
      const path = (issue.path ?? []).map((segment) => String(typeof segment === 'object' ? segment.key : segment)).join('.');
      const text = path === '' ? String(issue.message) : `${path}: ${String(issue.message)}`;
      return text.length > 200 ? `${text.slice(0, 200)}…` : text;
    });
    const more = issues.length - shown.length;
    return more > 0 ? `${shown.join('; ')}; … and ${more} more` : shown.join('; ');
  } catch (error) {
    return `(the issues cannot be shown: ${error instanceof Error ? error.message : 'unknown error'})`;
  }
}

/**
 * Checks an event's data against the schema that governs it, and gives the envelope with the
 * schema's output as its data. `schema` is the handler's or the catalog's (a catalog that has no
 * schema for the envelope's version gives its rejection instead); none checks nothing. Issues
 * reject the message; a schema that throws (a transform or refinement that fails) throws, which
 * fails the message and retries it.
 */
export async function validateData(
  schema: StandardSchemaV1 | MessageRejectedError | undefined,
  envelope: OutboxEnvelope,
  messageId: string,
): Promise<{ ok: true; envelope: OutboxEnvelope } | { ok: false; outcome: MessageOutcome }> {
  if (schema instanceof MessageRejectedError) return { ok: false, outcome: rejected(messageId, schema) };
  if (schema === undefined) return { ok: true, envelope };
  let result: StandardSchemaV1.Result<unknown>;
  try {
    result = await schema['~standard'].validate(envelope.data);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`The schema of ${JSON.stringify(envelope.type)} threw while validating the data of event ${envelope.id}: ${reason}`, {
      cause: error,
    });
  }
  if (result.issues !== undefined) {
    const error = new MessageRejectedError(
      'SCHEMA_VALIDATION_FAILED',
      `The data of event ${envelope.id} (${envelope.type}) failed its schema: ${describeIssues(result.issues)}; got ${jsonExcerpt(envelope.data)}`,
    );
    return { ok: false, outcome: rejected(messageId, error) };
  }
  return { ok: true, envelope: { ...envelope, data: result.value } };
}
