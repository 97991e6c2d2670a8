import { Show } from 'solid-js';

/** A refusal or failure, in the words the engine or relay wrote for the player; nothing when there is none. */
export function ErrorNote(props: { message: string | null | undefined }) {
  return (
    <Show when={props.message}>
      {(message) => (
        <p class="error" role="alert">
          {message()}
        </p>
      )}
    </Show>
  );
}
