/**
 * What a start that should be refused rejects with. A start that succeeds instead is stopped again,
 * and its promise rejects with an error saying so, which no refusal's assertions match.
 */
export function startRefusal(started: Promise<{ stop(): Promise<void> }>): Promise<unknown> {
  return started.then(
    async (stack) => {
      await stack.stop();
      return new Error('the stack started');
    },
    (error: unknown) => error,
  );
}
