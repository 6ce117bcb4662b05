import { describe, expect, it } from 'vitest';
import { LocalStackError } from '../../shared/local/errors.js';
import { StopList } from '../../shared/local/stack/stop-list.js';

/** A list of three parts, the middle one failing to stop with `middle`, the newest with `newest`; `stopped` names those stopped, in order. */
function parts(newest?: Error) {
  const stopped: string[] = [];
  const middle = new Error('middle failed');
  const list = new StopList();
  list.push(async () => {
    stopped.push('oldest');
  });
  list.push(async () => {
    stopped.push('middle');
    throw middle;
  });
  list.push(async () => {
    stopped.push('newest');
    if (newest !== undefined) throw newest;
  });
  return { list, stopped, middle };
}

describe('StopList', () => {
  it('stopReporting stops every part, newest first, and resolves with each failure in that order', async () => {
    const newest = new Error('newest failed');
    const { list, stopped, middle } = parts(newest);

    const failures = await list.stopReporting();

    expect(failures).toEqual([newest, middle]);
    expect(stopped).toEqual(['newest', 'middle', 'oldest']);
    expect(list.stopped).toBe(true);
  });

  it('stopAll rethrows the first failure once; a later call waits for the same stop and does not', async () => {
    const { list, stopped, middle } = parts();

    await expect(list.stopAll()).rejects.toBe(middle);
    await expect(list.stopAll()).resolves.toBeUndefined();

    expect(stopped).toEqual(['newest', 'middle', 'oldest']);
  });

  it('stopAll with several parts failing to stop rejects with STOP_FAILED naming each, not the first alone', async () => {
    const newest = new Error('newest failed');
    const { list, stopped, middle } = parts(newest);

    const error = await list.stopAll().then(
      () => new Error('stopAll resolved'),
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(LocalStackError);
    expect(error).toMatchObject({
      code: 'STOP_FAILED',
      message: "2 parts failed to stop (newest failed; middle failed: they are in the error's `errors`), the others have been stopped",
    });
    expect((error as LocalStackError).errors).toEqual([newest, middle]);
    expect(stopped).toEqual(['newest', 'middle', 'oldest']);
    await expect(list.stopAll()).resolves.toBeUndefined();
  });
});
