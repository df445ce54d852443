/**
 * Time comes from a Clock handed around in the context, never from Date.now() directly,
 * so tests move time forward instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private ms: number = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}

export const isoTime = (ms: number): string => new Date(ms).toISOString();
export const unixSecs = (ms: number): number => Math.floor(ms / 1000);
