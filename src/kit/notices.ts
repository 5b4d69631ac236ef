/**
 * The one bus for changes others may listen for (a project created, a post, a handoff): a store
 * or tool publishes a topic, and whoever listens (an MCP session that can carry notifications)
 * is told. In-process only: a notice says "read again", never what changed, so a listener that
 * misses one loses nothing it cannot read back. Nothing runs when no one listens.
 */

/** Topic: the list of resources may have changed (a project was created). */
export const RESOURCE_LIST_CHANGED = "resources/list_changed";

/** Called with the topic published. */
export type NoticeListener = (topic: string) => void;

/** Publishes topics to the listeners of this process. */
export class NoticeBus {
  #listeners = new Map<string, Set<NoticeListener>>();

  /** Tells every listener of `topic`; a listener that throws does not stop the others. */
  publish(topic: string): void {
    const listeners = this.#listeners.get(topic);
    if (listeners === undefined) return;
    for (const listener of [...listeners]) {
      try {
        listener(topic);
      } catch {
        // A listener's failure (a closed session) is its own: the others are still told.
      }
    }
  }

  /** Listens to `topic` until the returned function is called (calling it twice is harmless). */
  listen(topic: string, listener: NoticeListener): () => void {
    let listeners = this.#listeners.get(topic);
    if (listeners === undefined) this.#listeners.set(topic, listeners = new Set());
    const own = (t: string) => listener(t);
    listeners.add(own);
    return () => {
      listeners.delete(own);
      if (listeners.size === 0 && this.#listeners.get(topic) === listeners) {
        this.#listeners.delete(topic);
      }
    };
  }

  /** How many listen to `topic` now. */
  listeners(topic: string): number {
    return this.#listeners.get(topic)?.size ?? 0;
  }
}
