import type { BuildOptions } from 'esbuild';

/** The Node.js major the constructs deploy (Runtime.NODEJS_LATEST of this aws-cdk-lib). */
export function deployedNodeMajor(): string;
/** The esbuild settings of the prebuilt assets. */
export function assetBuildOptions(major?: string): BuildOptions;
/** A bundle's source map reduced to the package's own code (segments into node_modules dropped). */
export function ownCodeSourceMap(text: string): string;
