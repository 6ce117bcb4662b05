/*
 * The esbuild settings of the code the CDK constructs deploy as prebuilt assets (scripts/build.mjs),
 * in one place so that whatever is measured against the assets (bench/coldstart.ts) is built alike.
 */
import { createRequire } from 'node:module';
import { decode, encode } from '@jridgewell/sourcemap-codec';
import { tsImport } from 'tsx/esm/api';

// The banner OutboxFunction gives the handlers it bundles, read from its one definition in the constructs' source.
const { ESM_REQUIRE_BANNER } = await tsImport('../infra/private/esm-require-banner.ts', import.meta.url);

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
    banner: { js: ESM_REQUIRE_BANNER },
    minify: true,
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    logLevel: 'warning',
  };
}

/**
 * A bundle's source map reduced to the package's own code: segments that map into `node_modules`
 * (the AWS SDK, Powertools) are dropped, and so are the sources and names no segment left uses.
 * A stack trace still names our files and lines, and a frame inside a dependency points into the
 * bundle, as it would without a map. It keeps the maps about a tenth of their size, and with them
 * the package's.
 */
export function ownCodeSourceMap(text) {
  const map = JSON.parse(text);
  const own = map.sources.map((source) => !source.includes('node_modules/'));
  const lines = decode(map.mappings).map((line) => line.filter((segment) => segment.length === 1 || own[segment[1]]));
  // Renumbers the sources and names the kept segments use, in order of first use.
  const sources = new Map();
  const names = new Map();
  const index = (used, key) => {
    if (!used.has(key)) used.set(key, used.size);
    return used.get(key);
  };
  const mappings = lines.map((line) =>
    line.map((segment) => {
      if (segment.length === 1) return segment;
      const [column, source, sourceLine, sourceColumn, name] = segment;
      const kept = [column, index(sources, source), sourceLine, sourceColumn];
      return segment.length === 5 ? [...kept, index(names, name)] : kept;
    }),
  );
  return JSON.stringify({
    version: map.version,
    sources: [...sources.keys()].map((i) => map.sources[i]),
    names: [...names.keys()].map((i) => map.names[i]),
    mappings: encode(mappings),
  });
}
