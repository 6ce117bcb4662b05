import { existsSync } from 'node:fs';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { type IRole, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type Code, Function as LambdaFunction, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ESM_REQUIRE_BANNER } from './private/esm-require-banner.js';
import { checkInteger, checkSeconds, OutboxPropsError } from './private/props-error.js';
import { DEFAULT_LOG_RETENTION } from './private/retention.js';

/** A function's timeout unless `timeout` says otherwise (a subscriber's consumer too, unless `consumerTimeout` does). */
export const DEFAULT_FUNCTION_TIMEOUT = Duration.seconds(30);

/** Lambda's pattern of an environment variable's name. */
const ENVIRONMENT_NAME = /^[a-zA-Z][a-zA-Z0-9_]+$/;
/** Names Lambda sets itself and refuses in a function's environment. */
const RESERVED_ENVIRONMENT_NAMES = new Set([
  '_HANDLER',
  '_X_AMZN_TRACE_ID',
  'AWS_DEFAULT_REGION',
  'AWS_REGION',
  'AWS_EXECUTION_ENV',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  'AWS_LAMBDA_FUNCTION_VERSION',
  'AWS_LAMBDA_INITIALIZATION_TYPE',
  'AWS_LAMBDA_LOG_GROUP_NAME',
  'AWS_LAMBDA_LOG_STREAM_NAME',
  'AWS_ACCESS_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_LAMBDA_RUNTIME_API',
  'LAMBDA_TASK_ROOT',
  'LAMBDA_RUNTIME_DIR',
]);

/** Refuses, at synth, an environment variable name Lambda would refuse at deploy. */
function checkEnvironmentNames(path: string, environment: Readonly<Record<string, string>> | undefined): void {
  for (const name of Object.keys(environment ?? {})) {
    if (!ENVIRONMENT_NAME.test(name) || RESERVED_ENVIRONMENT_NAMES.has(name)) {
      throw new OutboxPropsError(
        path,
        'environment',
        `has the variable ${JSON.stringify(name)}${RESERVED_ENVIRONMENT_NAMES.has(name) ? ', a name Lambda reserves' : ''}; allowed: names of a letter then letters, digits and underscores (at least 2 characters), other than those Lambda sets itself (AWS_REGION, AWS_LAMBDA_*, …)`,
      );
    }
  }
}

/** Props of {@link OutboxFunction}. */
export interface OutboxFunctionProps {
  /**
   * Path of the TypeScript handler file, bundled at synthesis by the locally installed esbuild;
   * it must export `handler`. Exactly one of `entry` and `code`.
   */
  readonly entry?: string;
  /**
   * Code built ahead of synthesis (an ESM bundle `index.mjs` exporting `handler`), deployed as
   * it is: nothing is bundled at synthesis. Exactly one of `entry` and `code`.
   */
  readonly code?: Code;
  /** @default no description */
  readonly description?: string;
  /** Memory in MB (AWS: 128–10,240); CPU grows with it. @default 256 */
  readonly memorySize?: number;
  /** Invocation timeout (AWS: 1–900 s). @default Duration.seconds(30) */
  readonly timeout?: Duration;
  /** Extra environment variables, merged over the Powertools settings. @default none */
  readonly environment?: Readonly<Record<string, string>>;
  /** Powertools `POWERTOOLS_SERVICE_NAME`, which names the logs' and metrics' service. @default the construct id */
  readonly serviceName?: string;
  /** Powertools metrics namespace. @default 'Outbox' */
  readonly metricsNamespace?: string;
  /** Powertools log level. @default 'INFO' */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** How long the function's logs are kept. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** What happens to the log group when it leaves the stack. @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** X-Ray tracing. @default Tracing.ACTIVE */
  readonly tracing?: Tracing;
}

/**
 * A Node.js Lambda function as the outbox deploys them: bundled by the locally installed esbuild
 * (never Docker) as one ESM file, on arm64 and the newest Node.js runtime this aws-cdk-lib knows,
 * with its own log group and a role that holds no managed policy, so every permission it gets
 * is one a caller granted on purpose.
 *
 * Meant for functions invoked by an event source mapping (stream or queue): those invocations
 * are synchronous, so failed batches go to the mapping's destination or the queue's DLQ, and an
 * asynchronous-invocation DLQ would never receive anything.
 *
 * With tracing on, the role's `Resource "*"` finding is acknowledged for X-Ray; whoever grants
 * the role more must keep every other statement scoped (the stack's tests check that).
 *
 * @example
 * ```ts
 * const consumer = new OutboxFunction(this, 'Consumer', { entry: 'functions/example-consumer/handler.ts' });
 * queue.grantConsumeMessages(consumer.function);
 * ```
 */
export class OutboxFunction extends Construct {
  readonly function: LambdaFunction;
  readonly role: IRole;
  readonly logGroup: LogGroup;
  /** The environment the function was created with: the Powertools settings merged with `environment`. */
  readonly environment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: OutboxFunctionProps) {
    super(scope, id);
    const path = this.node.path;
    checkInteger(path, 'memorySize', props.memorySize, 128, 10_240);
    checkSeconds(path, 'timeout', props.timeout, 1, 900);
    checkEnvironmentNames(path, props.environment);
    if ((props.entry === undefined) === (props.code === undefined)) {
      throw new OutboxPropsError(
        path,
        'entry',
        `and code are ${props.entry === undefined ? 'both missing' : 'both given'}; allowed: exactly one, a handler file to bundle (entry) or prebuilt code (code)`,
      );
    }
    if (props.entry !== undefined && !existsSync(props.entry)) {
      throw new OutboxPropsError(
        path,
        'entry',
        `is ${JSON.stringify(props.entry)}, which does not exist; allowed: a handler file exporting \`handler\``,
      );
    }

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? DEFAULT_LOG_RETENTION,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    // No AWSLambdaBasicExecutionRole: it grants log writes on every log group in the account.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${path}`,
    });
    this.logGroup.grantWrite(this.role);

    const tracing = props.tracing ?? Tracing.ACTIVE;
    this.environment = {
      POWERTOOLS_SERVICE_NAME: props.serviceName ?? id,
      POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace ?? 'Outbox',
      POWERTOOLS_LOG_LEVEL: props.logLevel ?? 'INFO',
      NODE_OPTIONS: '--enable-source-maps',
      ...props.environment,
    };
    const common = {
      description: props.description,
      runtime: Runtime.NODEJS_LATEST,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 256,
      timeout: props.timeout ?? DEFAULT_FUNCTION_TIMEOUT,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      tracing,
      environment: { ...this.environment },
    };
    this.function =
      props.code !== undefined
        ? new LambdaFunction(this, 'Function', { ...common, code: props.code, handler: 'index.handler' })
        : new NodejsFunction(this, 'Function', {
            ...common,
            entry: props.entry,
            handler: 'handler',
            bundling: {
              forceDockerBundling: false,
              format: OutputFormat.ESM,
              mainFields: ['module', 'main'],
              banner: ESM_REQUIRE_BANNER,
              // The bundle pins the SDK version the tests ran against instead of the runtime's copy.
              bundleAwsSDK: true,
              minify: true,
              sourceMap: true,
              sourceMapMode: SourceMapMode.EXTERNAL,
              sourcesContent: false,
            },
          });

    Validations.of(this.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'Invoked only by event source mappings, which call it synchronously: failed stream batches go to the mapping on-failure destination and failed queue messages to the queue DLQ; an async DLQ would never receive anything.',
    });
    if (tracing !== Tracing.ACTIVE) {
      Validations.of(this.function).acknowledge({
        id: 'Serverless-LambdaTracing',
        reason: 'Active X-Ray tracing was turned off on purpose through the tracing prop (for instance to save the cost of traces).',
      });
    } else {
      Validations.of(this.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions, so X-Ray tracing needs Resource "*".',
      });
    }
  }
}
