import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ContainerImage } from 'aws-cdk-lib/aws-ecs';
import { describe, expect, it } from 'vitest';
import { Outbox } from '../../infra/outbox.js';
import { CONFIG_ENV, defineConfig, serializeRuntimeConfig } from '../../shared/config.js';
import { compileFilters } from '../../shared/local/event-source/filter-pattern.js';
import { SLOT_KIND, SLOT_PREFIX } from '../../shared/slot.js';
import { appWithoutBundling } from '../helpers/cdk.js';

const base = {
  source: 'urn:test:handover',
  topics: [{ name: 'orders.fifo', fifo: true }, { name: 'payments' }],
  routes: { order: 'orders.fifo', payment: 'payments' },
};
const image = ContainerImage.fromRegistry('public.ecr.aws/docker/library/node:24-slim');
const slot = (aggregateType: string) => ({
  eventName: 'INSERT',
  dynamodb: { NewImage: { pk: { S: `${SLOT_PREFIX}${aggregateType}#1` }, kind: { S: SLOT_KIND }, aggregateType: { S: aggregateType } } },
});

function synth(id: string, input: Partial<Parameters<typeof defineConfig>[0]>) {
  const config = defineConfig({ ...base, ...input });
  const stack = new Stack(appWithoutBundling(), id);
  const outbox = new Outbox(stack, 'Outbox', { config, processor: { image } });
  const template = Template.fromStack(stack);
  const mapping = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).find(
    (m) => m.Properties.StartingPosition === 'TRIM_HORIZON',
  )!;
  const patterns = (mapping.Properties.FilterCriteria as { Filters: { Pattern: string }[] }).Filters.map((f) => JSON.parse(f.Pattern));
  return { config, outbox, template, relayPasses: compileFilters(patterns) };
}

describe('Outbox with a handed-over aggregate type', () => {
  it('creates the processor for a handover type alone, giving it the config that names the type', () => {
    // No low-latency type: only the handover of `payment` onto the processor's path asks for the processor.
    const { config, outbox, template, relayPasses } = synth('HandoverOnto', { handoverAggregateTypes: ['payment'] });
    expect(outbox.processor).toBeDefined();
    template.resourceCountIs('AWS::ECS::Service', 1);
    const container = Object.values(template.findResources('AWS::ECS::TaskDefinition'))[0]!.Properties.ContainerDefinitions[0];
    const env = Object.fromEntries((container.Environment as { Name: string; Value: unknown }[]).map((e) => [e.Name, e.Value]));
    expect(env[CONFIG_ENV]).toBe(serializeRuntimeConfig(config));
    expect(JSON.parse(env[CONFIG_ENV] as string)).toMatchObject({ handoverAggregateTypes: ['payment'] });
    expect(relayPasses(slot('payment'))).toBe(true);
  });

  it("lets a low-latency type handed over through the relay mapping's filter", () => {
    const { relayPasses } = synth('HandoverOff', { lowLatencyAggregateTypes: ['payment'], handoverAggregateTypes: ['payment'] });
    expect(relayPasses(slot('payment'))).toBe(true);
    expect(relayPasses(slot('order'))).toBe(true);
  });
});
