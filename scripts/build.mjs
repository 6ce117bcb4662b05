#!/usr/bin/env node
/*
 * Builds the package into dist/: the library as ESM JavaScript with .d.ts (tsc), and the code the
 * CDK constructs deploy as prebuilt assets, so a user's `cdk synth` bundles nothing of ours:
 *   dist/assets/relay/index.mjs                       the relay Lambda handler (functions/relay/handler.ts)
 *   dist/assets/archiver/index.mjs                    the archiver Lambda handler (functions/archiver/handler.ts)
 *   dist/assets/processor/{main,health-check}.mjs     the stream processor and its health check,
 *   dist/assets/processor/Dockerfile                  with the image's Dockerfile (functions/processor/)
 *
 *   node scripts/build.mjs            everything
 *   node scripts/build.mjs --assets   the assets only (what `cdk synth` in this repository and the tests need)
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { assetBuildOptions, ownCodeSourceMap } from './bundle-settings.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const assetsOnly = process.argv.includes('--assets');

/**
 * Writes the files of one asset folder, each by an atomic rename and only where its content
 * changed, and removes files no longer made: a synthesis or test reading the folder while
 * another build runs never sees it half-written.
 */
function writeAsset(dir, files) {
  mkdirSync(dir, { recursive: true });
  for (const [name, contents] of files) {
    const path = join(dir, name);
    if (existsSync(path) && readFileSync(path).equals(contents)) continue;
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, contents);
    renameSync(temporary, path);
  }
  for (const name of readdirSync(dir)) if (!files.has(name)) rmSync(join(dir, name), { force: true });
}

/**
 * One ESM file per entry, with everything it imports (the AWS SDK too: the bundle pins the version the tests ran against),
 * except the packages named in `external`, which the Lambda runtime provides.
 */
async function bundle(entryPoints, outdir, extra = {}, external = []) {
  const { outputFiles } = await build({ ...assetBuildOptions(), entryPoints, outdir, write: false, external });
  const files = new Map(
    outputFiles.map((file) => [
      basename(file.path),
      file.path.endsWith('.map') ? Buffer.from(ownCodeSourceMap(file.text)) : Buffer.from(file.contents),
    ]),
  );
  for (const [name, path] of Object.entries(extra)) files.set(name, readFileSync(path));
  writeAsset(outdir, files);
}

if (!assetsOnly) {
  for (const name of existsSync(at('dist')) ? readdirSync(at('dist')) : [])
    if (name !== 'assets') rmSync(at(`dist/${name}`), { recursive: true, force: true });
  execFileSync(process.execPath, [at('node_modules/typescript/bin/tsc'), '-p', at('tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  chmodSync(at('dist/functions/cli/main.js'), 0o755);
}
await bundle({ index: at('functions/relay/handler.ts') }, at('dist/assets/relay'));
/*
 * The archiver takes its S3 client from the Lambda runtime (Node.js runtimes ship the AWS SDK v3):
 * it only calls PutObject, and bundling the S3 client would add some 165 KiB to the packed
 * package, past its 1 MiB budget. Locally the same code runs on the package's own client-s3.
 */
await bundle({ index: at('functions/archiver/handler.ts') }, at('dist/assets/archiver'), {}, ['@aws-sdk/client-s3']);
await bundle(
  { main: at('functions/processor/main.ts'), 'health-check': at('functions/processor/health-check.ts') },
  at('dist/assets/processor'),
  { Dockerfile: at('functions/processor/Dockerfile') },
);
