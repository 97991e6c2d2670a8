import type { Accessor } from 'solid-js';
import { editMarkKey, type ChatState, type EditTarget } from '../../../engine/for-ui.ts';
import { createAction } from '../../action.ts';
import type { AppClient } from '../../engine-client.ts';
import { t } from '../../i18n/index.ts';

/** What every part of the story drawer shares: the chat's state, names, hand edits and the action in flight. */
export function createDrawerScope(client: AppClient, chatId: Accessor<string>, drawer: Accessor<ChatState>, onGoToTurn: () => void = () => {}) {
  const { run: act, busy, error } = createAction();
  return {
    client,
    chatId,
    drawer,
    act,
    busy,
    error,
    name: (ref: string) => drawer().names[ref] ?? t('people.someone'),
    /** One hand edit; the engine's refusal (out of range, empty) comes back to the field that sent it. */
    edit: (target: EditTarget, field: string) => (value: unknown) => client.engine.editState(chatId(), target, field, value),
    edited: (target: EditTarget, field: string) => drawer().edited.includes(editMarkKey(target, field)),
    /** A "Why?" link to a turn was followed: on a phone the drawer makes way for the story. */
    onGoToTurn,
  };
}

export type DrawerScope = ReturnType<typeof createDrawerScope>;
