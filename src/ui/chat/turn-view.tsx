import { Show } from 'solid-js';
import type { TranscriptTurn } from '../../engine/for-ui.ts';
import { Avatar } from '../avatar.tsx';
import type { ChatScope } from './chat-scope.ts';
import { StoryText } from './story-text.tsx';
import { TurnEditor } from './turn-editor.tsx';
import { VersionSwitcher } from './version-switcher.tsx';

/** One turn of the story, with its controls: versions on the latest reply, Rewind to here on all but the last. */
export function TurnView(props: { chat: ChatScope; turn: TranscriptTurn; next: TranscriptTurn | undefined }) {
  const chat = props.chat;
  const streaming = () => Boolean(chat.pages.streaming());
  const editingThis = () => chat.editing()?.turnId === props.turn.turnId;
  return (
    <article
      class={`turn ${props.turn.role}${chat.pages.beforeReset(props.turn) ? ' before-reset' : ''}`}
      data-status={props.turn.status}
      data-turn-id={props.turn.turnId}
      data-seq={props.turn.seq}
    >
      <div class="speaker">
        <Avatar client={chat.client} name={props.turn.speakerName} hash={chat.avatarOf(props.turn.speaker)} />
        <strong>{props.turn.speakerName}</strong>
        <Show when={props.turn.edited}>
          <span class="edited-mark">edited</span>
        </Show>
        <Show when={props.turn.status === 'streaming'}>
          <span class="typing" aria-label="writing">
            <i />
            <i />
            <i />
          </span>
        </Show>
      </div>
      <Show
        when={editingThis()}
        fallback={
          <div class="story-text">
            <StoryText text={chat.textOf(props.turn)} ooc={chat.ooc()} />
          </div>
        }
      >
        <TurnEditor chat={chat} turn={props.turn} />
      </Show>
      <div class="turn-footer">
        <Show when={props.turn === chat.pages.last() ? chat.versions() : null}>{(shown) => <VersionSwitcher chat={chat} shown={shown()} />}</Show>
        <Show when={props.turn.role === 'assistant' && props.turn.completionTokens !== null}>
          <p class="usage" title="Tokens: prompt → reply">
            {props.turn.promptTokens} → {props.turn.completionTokens} tokens
          </p>
        </Show>
        <Show when={props.turn.status !== 'streaming' && !editingThis()}>
          <button type="button" class="small quiet turn-action" onClick={() => chat.setEditing({ turnId: props.turn.turnId, text: props.turn.text })}>
            Edit
          </button>
          <button type="button" class="small quiet turn-action" onClick={() => chat.setHidden(props.turn.turnId, true)} disabled={chat.sending()}>
            Delete
          </button>
        </Show>
        <Show when={props.turn.role === 'assistant' && props.turn.status !== 'streaming'}>
          <button type="button" class="small quiet turn-action" onClick={() => chat.setInspecting(props.turn.turnId)}>
            Why this reply?
          </button>
        </Show>
        <Show when={props.next && !streaming()}>
          <button type="button" class="small quiet turn-action" onClick={() => chat.setRewindFrom(props.next!.seq)}>
            Rewind to here
          </button>
        </Show>
        <Show when={props.turn.status !== 'streaming' && !streaming()}>
          <button type="button" class="small quiet turn-action" onClick={() => chat.branchFrom(props.turn.seq)} disabled={chat.sending()} title="A new chat with the story up to here">
            Branch from here
          </button>
        </Show>
      </div>
    </article>
  );
}
