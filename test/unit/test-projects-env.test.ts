import { describe, expect, it } from 'vitest';
import config from '../../vitest.config.js';

interface Project {
  readonly test?: { readonly name?: string; readonly isolate?: boolean; readonly setupFiles?: string | readonly string[] };
}

const projects = (config.test?.projects ?? []) as readonly Project[];

describe('vitest.config.ts: test files that share a process', () => {
  it('has projects whose files share their worker', () => {
    expect(projects.filter((project) => project.test?.isolate === false).map((project) => project.test?.name)).not.toEqual([]);
  });

  // The README: what a file sets in process.env is put back when it ends.
  it.each(projects.filter((project) => project.test?.isolate === false).map((project) => [project.test?.name ?? '?', project] as const))(
    'project %s puts back the environment each file changed',
    (_name, project) => {
      const setupFiles = [project.test?.setupFiles ?? []].flat();
      expect(setupFiles).toContain('test/helpers/restore-env.ts');
    },
  );
});
