import { vi } from 'vitest';

/**
 * Collects the process warnings named `name` instead of printing them, until `stop()`; other
 * warnings go through. Node emits an EventTarget's leak warning as the listener is added.
 */
export function captureWarnings(name = 'MaxListenersExceededWarning'): { readonly warnings: Error[]; stop(): void } {
  const warnings: Error[] = [];
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  const spy = vi.spyOn(process, 'emitWarning').mockImplementation(((warning: unknown, ...rest: unknown[]) => {
    if (warning instanceof Error && warning.name === name) warnings.push(warning);
    else emit(warning, ...rest);
  }) as typeof process.emitWarning);
  return { warnings, stop: () => spy.mockRestore() };
}
