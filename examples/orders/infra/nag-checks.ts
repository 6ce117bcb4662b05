import type { IPolicyValidationContext, PolicyValidationPluginReport } from 'aws-cdk-lib';
import { AwsSolutionsChecks, type IApplyRule, type NagPack, NagRuleCompliance, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** What one rule pack found in the last synthesis. */
export interface NagCount {
  readonly pack: string;
  /** Findings, acknowledged (with a reason) or not. */
  readonly findings: number;
  /** Findings nobody acknowledged: each fails the synthesis. */
  readonly unacknowledged: number;
}

/** The pack's rule runner, which each of its rules goes through (protected in cdk-nag's types). */
interface RuleRunner {
  applyRule(params: IApplyRule): void;
}

/**
 * Counts what a pack's rules find, acknowledged or not, by wrapping each rule as the pack applies
 * it, and what its validation reports as unacknowledged.
 */
function counted(pack: NagPack): { pack: NagPack; count: () => NagCount } {
  let findings = 0;
  let unacknowledged = 0;
  const runner = pack as unknown as RuleRunner;
  const applyRule = runner.applyRule.bind(pack);
  runner.applyRule = (params) => {
    const { rule } = params;
    const counting = (node: Parameters<IApplyRule['rule']>[0]) => {
      try {
        const result = rule(node);
        if (result === NagRuleCompliance.NON_COMPLIANT) findings++;
        else if (Array.isArray(result)) findings += result.length;
        return result;
      } catch (error) {
        findings++;
        throw error;
      }
    };
    // The rule's name is the suffix of its id, which acknowledgements name.
    Object.defineProperty(counting, 'name', { value: rule.name });
    applyRule({ ...params, rule: counting });
  };
  const validate = pack.validate.bind(pack);
  pack.validate = (context: IPolicyValidationContext): PolicyValidationPluginReport => {
    const report = validate(context);
    unacknowledged = report.violations.reduce((sum, v) => sum + v.violatingResources.length, 0);
    return report;
  };
  return { pack, count: () => ({ pack: pack.readPackName, findings, unacknowledged }) };
}

/**
 * The rule packs the app is checked with (AwsSolutions, Serverless), run as validation plugins
 * at synthesis, and what they found, for the line `npm run synth` ends with.
 *
 * @example
 * ```ts
 * const nag = nagChecks(app);
 * Validations.of(app).addPlugins(...nag.packs);
 * app.synth();
 * process.stderr.write(`${nag.summary()}\n`);
 * ```
 */
export function nagChecks(app: IConstruct) {
  const checks = [counted(new AwsSolutionsChecks(app, { verbose: true })), counted(new ServerlessChecks(app, { verbose: true }))];
  const counts = (): NagCount[] => checks.map((c) => c.count());
  return {
    packs: checks.map((c) => c.pack),
    counts,
    summary: () =>
      `cdk-nag: ${counts()
        .map((c) => `${c.pack} ${c.findings} findings, ${c.unacknowledged} unacknowledged`)
        .join('; ')}`,
  };
}
