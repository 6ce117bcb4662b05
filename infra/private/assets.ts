import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OutboxError } from '../../shared/errors.js';

/** The code the constructs deploy, built ahead of synthesis by `scripts/build.mjs`. */
export type PrebuiltAsset = 'relay' | 'processor' | 'archiver';

/** The file each asset must hold to be complete. */
const MARKER: Readonly<Record<PrebuiltAsset, string>> = { relay: 'index.mjs', processor: 'Dockerfile', archiver: 'index.mjs' };

/** A prebuilt asset the constructs deploy is missing: the package is incomplete, or this checkout was not built. */
export class PrebuiltAssetMissingError extends OutboxError {
  constructor(asset: PrebuiltAsset, searched: readonly string[]) {
    super(
      'PREBUILT_ASSET_MISSING',
      `the prebuilt ${asset} bundle is missing: none of ${searched.join(', ')} holds ${MARKER[asset]}; allowed: an installed dynamodb-outbox package (it ships dist/assets), or in a checkout of its repository \`node scripts/build.mjs --assets\` first`,
    );
  }
}

/**
 * The folder of a prebuilt asset: in the installed package it sits beside the compiled
 * constructs (`dist/assets/<asset>` next to `dist/infra`); in a checkout of the repository, where
 * the constructs run from their sources, it is `dist/assets/<asset>` once built. Synthesis then
 * bundles nothing of ours: no esbuild, no Docker build step of our code.
 *
 * @example
 * ```ts
 * Code.fromAsset(prebuiltAssetDir('relay'));
 * ```
 */
export function prebuiltAssetDir(asset: PrebuiltAsset): string {
  const searched = [`../../assets/${asset}/`, `../../dist/assets/${asset}/`].map((path) => fileURLToPath(new URL(path, import.meta.url)));
  const found = searched.find((dir) => existsSync(`${dir}${MARKER[asset]}`));
  if (found === undefined) throw new PrebuiltAssetMissingError(asset, searched);
  return found;
}
