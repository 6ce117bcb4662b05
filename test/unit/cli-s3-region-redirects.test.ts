import { describe, expect, it } from 'vitest';
import { s3Client } from '../../shared/aws/s3-client.js';
import { cliS3Config } from '../../shared/cli-region.js';

describe("the CLI's S3 client (replay's archive bucket, redrive on-failure's --bucket) in the bucket's Region", () => {
  it("on AWS follows S3's redirect to the bucket's Region, from the run's Region", async () => {
    const s3 = s3Client(cliS3Config('eu-west-1', undefined));

    expect(s3.config.followRegionRedirects).toBe(true);
    await expect(s3.config.region()).resolves.toBe('eu-west-1');
    expect(s3.config.forcePathStyle).toBe(false);
    expect(s3.config.endpoint).toBeUndefined();
  });

  it("with no Region of the run's own, leaves it to the SDK and still follows the redirect", () => {
    const config = cliS3Config(undefined, undefined);

    expect(config).not.toHaveProperty('region');
    expect(config.followRegionRedirects).toBe(true);
  });

  it('with --endpoint (a local emulator) sends there, path-style, and follows nothing', async () => {
    const s3 = s3Client(cliS3Config('us-east-1', 'http://localhost:4566'));

    expect(s3.config.followRegionRedirects).toBe(false);
    expect(s3.config.forcePathStyle).toBe(true);
    const endpoint = await s3.config.endpoint?.();
    expect(endpoint?.hostname).toBe('localhost');
  });
});
