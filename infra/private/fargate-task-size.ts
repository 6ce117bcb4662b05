import { Token } from 'aws-cdk-lib';
import { showValue } from '../../shared/show-value.js';

/** Memory Fargate offers (MiB) for a task CPU value: from `min` to `max` in steps of `step`, or exactly `values`. */
type MemoryChoices = { readonly values: readonly number[] } | { readonly min: number; readonly max: number; readonly step: number };

/**
 * Fargate's task sizes, as the ECS developer guide lists them ("Task CPU and memory"); 8,192 and
 * 16,384 CPU need Linux platform 1.4.0, which every arm64 task runs on. Neither CloudFormation
 * at synth nor CDK's `FargateTaskDefinition` checks them: a wrong pair fails at deploy.
 */
const FARGATE_TASK_SIZES: ReadonlyMap<number, MemoryChoices> = new Map<number, MemoryChoices>([
  [256, { values: [512, 1_024, 2_048] }],
  [512, { min: 1_024, max: 4_096, step: 1_024 }],
  [1_024, { min: 2_048, max: 8_192, step: 1_024 }],
  [2_048, { min: 4_096, max: 16_384, step: 1_024 }],
  [4_096, { min: 8_192, max: 30_720, step: 1_024 }],
  [8_192, { min: 16_384, max: 61_440, step: 4_096 }],
  [16_384, { min: 32_768, max: 122_880, step: 8_192 }],
]);

const offers = (choices: MemoryChoices, memory: number): boolean =>
  'values' in choices
    ? choices.values.includes(memory)
    : memory >= choices.min && memory <= choices.max && (memory - choices.min) % choices.step === 0;

const describeChoices = (choices: MemoryChoices): string =>
  'values' in choices
    ? `${choices.values.slice(0, -1).join(', ')} or ${choices.values.at(-1)} MiB`
    : `${choices.min} to ${choices.max} MiB in steps of ${choices.step}`;

/**
 * What is wrong with a Fargate task size, as the prop to blame and a message saying what was
 * given and what is allowed; `undefined` when Fargate offers it or a value is an unresolved token.
 *
 * @example
 * ```ts
 * const problem = fargateTaskSizeProblem(256, 4096);
 * // { prop: 'memoryLimitMiB', message: 'got 4096 with cpu 256; allowed with cpu 256: 512, 1024 or 2048 MiB' }
 * ```
 */
export function fargateTaskSizeProblem(
  cpu: number,
  memoryLimitMiB: number,
): { readonly prop: 'cpu' | 'memoryLimitMiB'; readonly message: string } | undefined {
  if (Token.isUnresolved(cpu)) return undefined;
  const choices = FARGATE_TASK_SIZES.get(cpu);
  if (choices === undefined) {
    const cpus = [...FARGATE_TASK_SIZES.keys()];
    return {
      prop: 'cpu',
      message: `got ${showValue(cpu)}; allowed: ${cpus.slice(0, -1).join(', ')} or ${cpus.at(-1)} (Fargate task CPU units)`,
    };
  }
  if (Token.isUnresolved(memoryLimitMiB) || offers(choices, memoryLimitMiB)) return undefined;
  return {
    prop: 'memoryLimitMiB',
    message: `got ${showValue(memoryLimitMiB)} with cpu ${cpu}; allowed with cpu ${cpu}: ${describeChoices(choices)} (Fargate task sizes)`,
  };
}
