import { onMount, type JSX } from 'solid-js';

/**
 * A modal dialog, shown as soon as it is mounted: its heading names it, Esc or the backdrop's
 * cancel closes it through `onClose` (the owner unmounts it), and focus stays inside while open.
 */
export function Modal(props: { title: string; id: string; class?: string; onClose: () => void; children: JSX.Element }) {
  let dialog: HTMLDialogElement | undefined;
  onMount(() => dialog?.showModal());
  return (
    <dialog
      ref={dialog}
      class={props.class ?? 'rewind-dialog'}
      aria-labelledby={props.id}
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      <h2 id={props.id}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}
