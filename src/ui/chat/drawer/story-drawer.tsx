import { Show } from 'solid-js';
import { t } from '../../i18n/index.ts';
import type { ChatState } from '../../../engine/for-ui.ts';
import type { AppClient } from '../../engine-client.ts';
import { createLiveQuery } from '../../live-query.ts';
import { SamplerFields, samplerFromForm } from '../../sampler-fields.tsx';
import { ErrorNote } from '../../error-note.tsx';
import { Editable } from '../editable.tsx';
import { createDrawerScope } from './drawer-scope.ts';
import { ExportSection } from './export-section.tsx';
import { FeelingsSection } from './feelings-section.tsx';
import { InviteSection } from './invite-section.tsx';
import { ItemsSection } from './items-section.tsx';
import { FieldsSection } from './fields-section.tsx';
import { LoreSection } from './lore-section.tsx';
import { MemoriesSection } from './memories-section.tsx';
import { PeopleSection } from './people-section.tsx';
import { ThreadsSection } from './threads-section.tsx';
import { WhenAndWhere } from './when-and-where.tsx';
import { StoryLanguageSection } from './story-language-section.tsx';

/**
 * The chat's living state, as the engine holds it: clock, scene and place, who is doing what, how
 * each feels about the other and what they know, and the host's memories with their pins.
 */
export function StoryDrawer(props: { client: AppClient; chatId: string; drawer: ChatState; onGoToTurn?: () => void }) {
  const d = createDrawerScope(props.client, () => props.chatId, () => props.drawer, () => props.onGoToTurn?.());
  const { act, busy, error } = d;
  const settings = createLiveQuery(props.client, { query: 'settings' }, () => props.client.engine.settings());
  return (
    <aside class="drawer" aria-label={t('drawer.storyStateLabel')} data-testid="story-drawer">
      <ErrorNote message={error()} />

      <Show when={props.drawer.lastEdit}>
        {(field) => (
          <p class="button-row small-text">
            <button type="button" class="small" disabled={busy()} onClick={() => void act(() => props.client.engine.undoStateEdit(props.chatId))} title={t('story.undoLastEditHint', field())}>
              {t('story.undoLastEdit')}
            </button>
            <span class="muted">({field()})</span>
          </p>
        )}
      </Show>

      <section aria-labelledby="drawer-director">
        <h2 id="drawer-director">{t('drawer.directorNote')}</h2>
        <p class="small-text muted">{t('drawer.directorHint')}</p>
        <p class="small-text" data-testid="director-note">
          <Editable label={t('story.directorNoteLabel')} kind="long" value={props.drawer.directorNote} save={d.edit({ type: 'chat_state' }, 'directorNote')}>
            {props.drawer.directorNote || <span class="muted">{t('drawerMore.noNote')}</span>}
          </Editable>
        </p>
      </section>

      <StoryLanguageSection client={props.client} chatId={props.chatId} busy={busy()} act={act} />

      <details class="drawer-sampling">
        <summary>
          {t('drawer.sampling')}
          {props.drawer.sampler ? t('drawer.samplingOwn') : ''}
        </summary>
        <form
          class="stack"
          aria-label={t('drawer.sampling')}
          onSubmit={(event) => {
            event.preventDefault();
            const knobs = samplerFromForm(new FormData(event.currentTarget));
            void act(() => props.client.engine.setChatSampler(props.chatId, knobs));
          }}
        >
          <p class="small-text muted">{t('drawerMore.samplingHint')}</p>
          <SamplerFields value={props.drawer.sampler ?? {}} placeholder={settings()?.sampler} />
          <div class="button-row">
            <button type="submit" class="small" disabled={busy()}>
              {t('story.saveSampling')}
            </button>
            <Show when={props.drawer.sampler}>
              <button type="button" class="small quiet" disabled={busy()} onClick={() => void act(() => props.client.engine.setChatSampler(props.chatId, {}))}>
                {t('story.followSettings')}
              </button>
            </Show>
          </div>
        </form>
      </details>
      <WhenAndWhere d={d} />
      <ThreadsSection d={d} />
      <ItemsSection d={d} />
      <FieldsSection d={d} />
      <PeopleSection d={d} />
      <InviteSection d={d} />
      <LoreSection d={d} />
      <FeelingsSection d={d} />
      <MemoriesSection d={d} />
      <ExportSection d={d} />
    </aside>
  );
}
