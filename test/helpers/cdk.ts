import { App, Validations } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { expect } from 'vitest';
import { OutboxPropsError } from '../../infra/private/props-error.js';

/** A real consumer handler (the example consumer), for subscribers that need one. */
export { DEFAULT_CONSUMER_ENTRY as CONSUMER_ENTRY } from '../../examples/orders/infra/orders-stack.js';

/**
 * An app whose stacks skip asset bundling: for tests that check validation or the template's
 * shape, where running esbuild would only cost time.
 */
export const appWithoutBundling = (): App => new App({ context: { 'aws:cdk:bundling-stacks': [] } });

/** Every cdk-nag finding (AwsSolutions and Serverless packs) not acknowledged in the tree, as `ruleId @ path`. */
export function unacknowledgedFindings(scope: IConstruct): string[] {
  return [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
    pack.validateScope(scope).violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} @ ${r.constructPath}`)),
  );
}

/** Every acknowledgement recorded in the tree: rule id, reason and where. */
export function acknowledgements(scope: IConstruct): { id: string; reason: unknown; path: string }[] {
  return scope.node
    .findAll()
    .flatMap((c) =>
      c.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((m) => Object.entries(m.data as Record<string, unknown>).map(([id, reason]) => ({ id, reason, path: c.node.path }))),
    );
}

export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: unknown;
  readonly Principal?: unknown;
  readonly Sid?: string;
}

export const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);
export const resourcesOf = (s: Statement): unknown[] => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]);

/** The logical id of the one resource of `type` whose logical id starts with `prefix`. */
export function logicalId(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one ${type} with a logical id starting ${prefix}, found ${JSON.stringify(ids)}`);
  return ids[0]!;
}

/** Every statement of the IAM policies attached to the role `roleId`, plus its inline policies. */
export function roleStatements(template: Template, roleId: string): Statement[] {
  const attached = Object.values(template.findResources('AWS::IAM::Policy')).filter((p) =>
    (p.Properties.Roles as unknown[]).some((r) => JSON.stringify(r) === JSON.stringify({ Ref: roleId })),
  );
  const role = template.findResources('AWS::IAM::Role')[roleId];
  const inline = (role?.Properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[];
  return [
    ...attached.map((p) => p.Properties.PolicyDocument as { Statement: Statement[] }),
    ...inline.map((p) => p.PolicyDocument),
  ].flatMap((doc) => doc.Statement);
}

/** The synthesized resource of `type` with exactly this logical id. */
export function resource(template: Template, type: string, id: string): { Properties: Record<string, unknown>; DeletionPolicy?: string } {
  const found = template.findResources(type)[id];
  if (!found) throw new Error(`no ${type} ${id}`);
  return found as { Properties: Record<string, unknown>; DeletionPolicy?: string };
}

/** Runs `build`, expecting an OutboxPropsError whose message names every fragment. */
export function expectPropsError(build: () => unknown, prop: string, ...fragments: string[]): void {
  let caught: unknown;
  try {
    build();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(OutboxPropsError);
  const error = caught as OutboxPropsError;
  expect(error.code).toBe('INVALID_CONSTRUCT_PROPS');
  expect(error.prop).toBe(prop);
  for (const fragment of fragments) expect(error.message).toContain(fragment);
}
