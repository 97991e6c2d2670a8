import { createMemo, createSignal, For, onCleanup, Show, type JSX } from 'solid-js';
import { Portal } from 'solid-js/web';

export interface MenuItem {
  label: string;
  onSelect: () => void;
  disabled?: boolean;
  /** What it will do: its tooltip, and read after its name. */
  hint?: string;
  danger?: boolean;
}

export interface MenuHandle {
  open: (from?: { x: number; y: number }) => void;
}

/**
 * A button that opens a menu of actions (WAI-ARIA menu button): Enter, Space, ↓ or a click open it
 * on its first item; ↑ ↓ Home End move; Esc or Tab close it, and focus goes back to the button, so
 * an action that opens something else (an editor, a dialog) has the button to return focus to.
 * The menu sits above the page, beside its button, turned up where there is no room below.
 */
export function MenuButton(props: {
  label: string;
  items: () => MenuItem[];
  class?: string;
  children: JSX.Element;
  title?: string;
  ref?: (handle: MenuHandle) => void;
}) {
  const [at, setAt] = createSignal<{ top: number; left: number; up: boolean } | null>(null);
  let button: HTMLButtonElement | undefined;
  let menu: HTMLDivElement | undefined;
  const id = `menu-${Math.random().toString(36).slice(2, 9)}`;

  // Read only while the menu is open: a transcript has a menu on every turn, and working out each
  // one's items as it was drawn was a tenth of opening a chat.
  const labels = createMemo(() => (at() ? props.items().map((item) => item.label) : []), [], { equals: (a, b) => a.length === b.length && a.every((label, i) => label === b[i]) });
  const itemsOf = () => [...(menu?.querySelectorAll<HTMLButtonElement>('[role=menuitem]:not(:disabled)') ?? [])];
  const focusItem = (index: number) => {
    const items = itemsOf();
    if (items.length) items[(index + items.length) % items.length]!.focus();
  };
  const open = (from?: { x: number; y: number }) => {
    if (!button) return;
    const rect = button.getBoundingClientRect();
    const x = from?.x ?? rect.right;
    const y = from?.y ?? rect.bottom;
    const up = y > window.innerHeight * 0.6;
    setAt({ top: up ? (from ? y : rect.top) : y + 4, left: Math.max(8, x), up });
    queueMicrotask(() => focusItem(0));
  };
  const close = (refocus: boolean) => {
    if (!at()) return;
    const hadFocus = menu?.contains(document.activeElement) ?? false;
    setAt(null);
    if (refocus || hadFocus) button?.focus();
  };
  props.ref?.({ open });

  const onOutside = (event: PointerEvent) => {
    if (at() && !menu?.contains(event.target as Node) && !button?.contains(event.target as Node)) close(false);
  };
  // The menu stays where it opened while the page settles under it (a reply arriving scrolls the
  // story: a menu that followed would move under the pointer about to choose); when its button
  // leaves the screen, or the window changes size, it closes.
  const onWindowChange = (event: Event) => {
    if (!at() || (event.type === 'scroll' && menu?.contains(event.target as Node))) return;
    const rect = button?.isConnected ? button.getBoundingClientRect() : null;
    if (event.type === 'resize' || !rect || rect.bottom < 0 || rect.top > window.innerHeight) close(false);
  };
  document.addEventListener('pointerdown', onOutside, true);
  window.addEventListener('resize', onWindowChange);
  document.addEventListener('scroll', onWindowChange, true);
  onCleanup(() => {
    document.removeEventListener('pointerdown', onOutside, true);
    window.removeEventListener('resize', onWindowChange);
    document.removeEventListener('scroll', onWindowChange, true);
  });
  /** Kept on screen: a menu opened near the left edge (a long-press there) grows rightwards. */
  const keepOnScreen = (element: HTMLDivElement) => {
    menu = element;
    queueMicrotask(() => {
      const rect = element.getBoundingClientRect();
      if (rect.left < 8) element.style.right = `${Math.max(8, window.innerWidth - rect.width - 8)}px`;
    });
  };

  const onMenuKey = (event: KeyboardEvent) => {
    const items = itemsOf();
    const current = items.indexOf(document.activeElement as HTMLButtonElement);
    const moves: Record<string, number> = { ArrowDown: current + 1, ArrowUp: current - 1, Home: 0, End: items.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      focusItem(moves[event.key]!);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      close(true);
    } else if (event.key === 'Tab') {
      event.preventDefault();
      close(true);
    }
  };

  return (
    <>
      <button
        type="button"
        ref={button}
        class={props.class ?? 'icon-button'}
        aria-label={props.label}
        title={props.title ?? props.label}
        aria-haspopup="menu"
        aria-expanded={at() !== null}
        aria-controls={at() ? id : undefined}
        onClick={() => (at() ? close(true) : open())}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            open();
          }
        }}
      >
        {props.children}
      </button>
      <Show when={at()}>
        {(place) => (
          <Portal>
            <div
              ref={keepOnScreen}
              id={id}
              role="menu"
              aria-label={props.label}
              class="menu"
              classList={{ up: place().up }}
              style={{
                top: place().up ? undefined : `${place().top}px`,
                bottom: place().up ? `${window.innerHeight - place().top + 4}px` : undefined,
                right: `${Math.max(8, window.innerWidth - place().left)}px`,
              }}
              onKeyDown={onMenuKey}
            >
              {/* Keyed by label: an item whose state changes (disabled while busy) keeps its focus. */}
              <For each={labels()}>
                {(label, index) => {
                  const item = () => props.items().find((candidate) => candidate.label === label) ?? { label, onSelect: () => undefined, disabled: true };
                  return (
                  <button
                    type="button"
                    role="menuitem"
                    // The hint describes the item (a tooltip, and read after its name); the name
                    // stays the label, which is all the item shows.
                    title={item().hint}
                    aria-describedby={item().hint ? `${id}-hint-${index()}` : undefined}
                    classList={{ danger: Boolean(item().danger) }}
                    disabled={item().disabled}
                    onClick={() => {
                      const chosen = item();
                      close(true);
                      chosen.onSelect();
                    }}
                  >
                    <span>{item().label}</span>
                  </button>
                  );
                }}
              </For>
              {/* Descriptions, outside the items so no item's name holds more than its label. */}
              <For each={labels()}>
                {(label, index) => (
                  <span hidden id={`${id}-hint-${index()}`}>
                    {props.items().find((candidate) => candidate.label === label)?.hint ?? ''}
                  </span>
                )}
              </For>
            </div>
          </Portal>
        )}
      </Show>
    </>
  );
}
