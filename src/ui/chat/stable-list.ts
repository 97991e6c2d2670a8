/**
 * Keeps, for each item of a list that is fetched again, the object it had the last time when its
 * content is the same, so Solid's <For> (keyed by object) leaves its DOM alone. A swipe or an undo
 * in a long chat then repaints the turn that changed, not every turn on the page.
 */
export function createStableList<T>(key: (item: T) => string): (items: readonly T[]) => T[] {
  let previous = new Map<string, T>();
  return (items) => {
    const next = new Map<string, T>();
    const result = items.map((item) => {
      const k = key(item);
      const kept = previous.get(k) ?? next.get(k) ?? item;
      next.set(k, kept);
      return kept;
    });
    previous = next;
    return result;
  };
}
