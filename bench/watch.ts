/**
 * Waiting, bounded, for many raw-socket clients to reach a state: their data handlers call
 * report(), and whoever waits re-checks its condition then instead of polling.
 */
export class Watch {
  private wake: (() => void) | null = null;

  /** Resolves when `done()` holds or after `ms`, whichever comes first; checked on every report. */
  until(done: () => boolean, ms: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolveWait) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolveWait(done());
      }, ms);
      this.wake = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.wake = null;
        resolveWait(true);
      };
    });
  }

  report(): void {
    this.wake?.();
  }
}
