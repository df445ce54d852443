/**
 * In-process publish/subscribe for things that already committed (outbox events after their
 * transaction, metering events). SSE feeds and the webhook dispatcher listen here to wake up;
 * the outbox table stays the source of truth, so a missed notification loses nothing.
 */
export type Listener<T> = (message: T) => void;

export class Bus<T> {
  private listeners = new Set<Listener<T>>();

  subscribe(listener: Listener<T>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(message: T): void {
    for (const listener of this.listeners) {
      try {
        listener(message);
      } catch {
        // One faulty listener must not stop delivery to the others or fail the committed change.
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
