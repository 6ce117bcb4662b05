/*
 * The esbuild settings of the code the CDK constructs deploy as prebuilt assets (scripts/build.mjs),
 * in one place so that whatever is measured against the assets (bench/coldstart.ts) is built alike.
 */
import { createRequire } from 'node:module';
import { decode, encode } from '@jridgewell/sourcemap-codec';

/** The Node.js major the constructs deploy (Runtime.NODEJS_LATEST of this aws-cdk-lib). */
export function deployedNodeMajor() {
  const { Runtime } = createRequire(import.meta.url)('aws-cdk-lib/aws-lambda');
  const major = /^nodejs(\d+)\.x$/.exec(Runtime.NODEJS_LATEST.name)?.[1];
  if (major === undefined) throw new Error(`unexpected Runtime.NODEJS_LATEST: ${Runtime.NODEJS_LATEST.name}`);
  return major;
}

/** One ESM file per entry, with everything it imports (the AWS SDK too: the bundle pins the version the tests ran against). */
export function assetBuildOptions(major = deployedNodeMajor()) {
  return {
    bundle: true,
    platform: 'node',
    target: `node${major}`,
    format: 'esm',
    mainFields: ['module', 'main'],
    outExtension: { '.js': '.mjs' },
    // Some CommonJS dependencies call require() at run time, which an ESM bundle lacks.
    banner: {
      js: "import { createRequire as outboxCreateRequire } from 'node:module'; const require = outboxCreateRequire(import.meta.url);",
    },
    minify: true,
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    logLevel: 'warning',
  };
}

/**
 * A bundle's source map reduced to the package's own code: segments that map into `node_modules`
 * (the AWS SDK, Powertools) are dropped. A stack trace still names our files and lines, and a
 * frame inside a dependency points into the bundle, as it would without a map. It keeps the maps
 * about a third of their size, and the package under 1 MB packed.
 */
export function ownCodeSourceMap(text) {
  const map = JSON.parse(text);
  const own = map.sources.map((source) => !source.includes('node_modules/'));
  const lines = decode(map.mappings).map((line) => line.filter((segment) => segment.length === 1 || own[segment[1]]));
  return JSON.stringify({ ...map, mappings: encode(lines) });
}
