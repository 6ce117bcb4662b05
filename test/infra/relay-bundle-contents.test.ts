import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { assetBuildOptions } from '../../scripts/bundle-settings.mjs';

const RELAY_ENTRY = fileURLToPath(new URL('../../functions/relay/handler.ts', import.meta.url));

/** The packages whose code ends up in the relay asset, built as scripts/build.mjs builds it. */
async function relayBundlePackages(): Promise<Set<string>> {
  const { metafile } = await build({
    ...assetBuildOptions(),
    entryPoints: { index: RELAY_ENTRY },
    outdir: 'out',
    write: false,
    metafile: true,
  });
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith('index.mjs'))![1];
  return new Set(
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .flatMap(([path]) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? []),
  );
}

describe('the relay asset', () => {
  it('holds the SNS and SQS clients it calls and no DynamoDB client', async () => {
    const packages = await relayBundlePackages();
    expect(packages).toContain('@aws-sdk/client-sns');
    expect(packages).toContain('@aws-sdk/client-sqs');
    expect([...packages].filter((name) => /^@aws-sdk\/(client-dynamodb|lib-dynamodb|dynamodb-codec)/.test(name))).toEqual([]);
  });
});
