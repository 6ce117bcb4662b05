/** Lets callers through while open; after `close()`, they wait until `open()`. */
export class Gate {
  private closed: Promise<void> | undefined;
  private opener: (() => void) | undefined;

  close(): void {
    this.closed = new Promise((resolve) => {
      this.opener = resolve;
    });
  }

  open(): void {
    this.opener?.();
    this.closed = undefined;
  }

  passed(): Promise<void> | undefined {
    return this.closed;
  }
}
