import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * An adopter's shell with no Region set anywhere and no credentials: no AWS_* variables (nor
 * OUTBOX_CONFIG, nor the variables in `drop`), a home of its own without ~/.aws (`dir`, a new
 * folder named after `name`), no instance metadata. A run that gets as far as an AWS call fails for
 * want of credentials, before anything is sent. `env(extra)` is that shell with `extra` set; a
 * profile is written to `join(dir, 'config')`.
 *
 * @example
 * ```ts
 * const { dir, env } = noRegionShell('cli-queue-url-region');
 * const refused = await runCliIn(['dlq', 'summarize', '--queue-url', url], env({ AWS_REGION: 'us-east-1' }));
 * ```
 */
export function noRegionShell(
  name: string,
  drop: readonly string[] = [],
): { dir: string; env: (extra?: Record<string, string>) => NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const bare = Object.fromEntries(
    Object.entries(process.env).filter(
      ([variable]) => !variable.startsWith('AWS_') && variable !== 'OUTBOX_CONFIG' && !drop.includes(variable),
    ),
  );
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    ...bare,
    HOME: dir,
    USERPROFILE: dir,
    AWS_CONFIG_FILE: join(dir, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    NODE_NO_WARNINGS: '1',
    ...extra,
  });
  return { dir, env };
}
