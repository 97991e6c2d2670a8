import { onCleanup } from 'solid-js';

/** Whether the component is still on screen: an action that lands late must not pull the user back. */
export function createStillHere(): () => boolean {
  let here = true;
  onCleanup(() => (here = false));
  return () => here;
}
