import { createSignal, type JSX } from 'solid-js';

/** A button that opens the file picker: a label around a hidden input, so it is one control to the keyboard and to assistive tech. */
export function FileButton(props: { label: string; accept: string; title?: string; class?: string; disabled?: boolean; onFile: (file: File) => void }) {
  return (
    <label class={props.class ?? 'button'} title={props.title}>
      {props.label}
      <input
        type="file"
        accept={props.accept}
        class="visually-hidden"
        disabled={props.disabled}
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          // Cleared, so choosing the same file again (after fixing it) is a change too.
          e.currentTarget.value = '';
          if (file) props.onFile(file);
        }}
      />
    </label>
  );
}

/** A page that takes a file dropped anywhere on it: spread `handlers` on its element, style it by `dragging`. */
export function createFileDrop(onFile: (file: File) => void) {
  const [dragging, setDragging] = createSignal(false);
  const handlers: Pick<JSX.HTMLAttributes<HTMLElement>, 'onDragOver' | 'onDragLeave' | 'onDrop'> = {
    onDragOver: (event) => {
      if (!event.dataTransfer?.types.includes('Files')) return;
      event.preventDefault();
      setDragging(true);
    },
    onDragLeave: (event) => {
      if (event.currentTarget === event.target) setDragging(false);
    },
    onDrop: (event) => {
      event.preventDefault();
      setDragging(false);
      const file = event.dataTransfer?.files[0];
      if (file) onFile(file);
    },
  };
  return { dragging, handlers };
}
