/** The process warnings named `name` emitted while capturing; Node emits them on the next tick, so `settled()` waits for that. */
export function captureWarnings(name = 'MaxListenersExceededWarning'): {
  readonly warnings: Error[];
  settled(): Promise<void>;
  stop(): void;
} {
  const warnings: Error[] = [];
  const listener = (warning: Error): void => {
    if (warning.name === name) warnings.push(warning);
  };
  process.on('warning', listener);
  return {
    warnings,
    settled: () => new Promise((resolve) => setImmediate(resolve)),
    stop: () => process.off('warning', listener),
  };
}
