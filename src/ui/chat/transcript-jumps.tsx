import { createSignal, Show } from 'solid-js';
import type { TranscriptPlace } from '../../engine/for-ui.ts';
import { t } from '../i18n/index.ts';
import { Modal } from '../modal.tsx';

/** The day an in-fiction ISO time falls on, for the date field ('1890-05-01T20:00:00' → '1890-05-01'). */
const dayOf = (iso: string | undefined) => /^-?\d{4,}-\d{2}-\d{2}/.exec(iso ?? '')?.[0] ?? '';
const today = () => {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
};

/**
 * The ways through a long story that scrolling is too slow for: "Jump to the start", "Jump to a
 * date" (of the story's own clock, or when it was played), in the chat's header; the view offers
 * "Jump to the latest" while away.
 */
export function TranscriptJumps(props: { goTo: (place: TranscriptPlace) => void; fictionTime: string | undefined; askDate: (open: () => void) => void }) {
  const [asking, setAsking] = createSignal(false);
  const [clock, setClock] = createSignal<'story' | 'real'>('story');
  const [day, setDay] = createSignal('');
  const open = () => {
    setDay(clock() === 'story' ? dayOf(props.fictionTime) : today());
    setAsking(true);
  };
  // On a phone the buttons give their room to the title: the chat's menu offers both instead.
  props.askDate(open);
  const choose = (which: 'story' | 'real') => {
    setClock(which);
    setDay(which === 'story' ? dayOf(props.fictionTime) : today());
  };
  const go = (event: SubmitEvent) => {
    event.preventDefault();
    if (!day()) return;
    setAsking(false);
    // Story time compares as ISO text with the scenes' clock; real time is the reader's own midnight.
    props.goTo(clock() === 'story' ? { storyTime: day() } : { sentAt: new Date(`${day()}T00:00:00`).getTime() });
  };
  return (
    <>
      <div class="transcript-jumps row" role="group" aria-label={t('story.jumps')}>
        <button type="button" class="icon-button" aria-label={t('story.jumpStart')} title={t('story.jumpStart')} onClick={() => props.goTo({ index: 0 })}>
          <svg aria-hidden="true" width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor" stroke-width="1.5">
            <path d="M3 2.5h10M8 14V6M4.5 9.5 8 6l3.5 3.5" />
          </svg>
        </button>
        <button type="button" class="icon-button" aria-label={t('story.jumpDate')} title={t('story.jumpDate')} onClick={open}>
          <svg aria-hidden="true" width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor" stroke-width="1.5">
            <rect x="2" y="3" width="12" height="11" rx="1.5" />
            <path d="M2 6.5h12M5 1.5v3M11 1.5v3" />
          </svg>
        </button>
      </div>
      <Show when={asking()}>
        <Modal title={t('story.jumpDate')} id="jump-date-title" class="rewind-dialog jump-date" onClose={() => setAsking(false)}>
          <form onSubmit={go}>
            <fieldset class="row">
              <legend class="visually-hidden">{t('story.whichClock')}</legend>
              <label class="check">
                <input type="radio" name="clock" checked={clock() === 'story'} onChange={() => choose('story')} /> {t('story.storyTime')}
              </label>
              <label class="check">
                <input type="radio" name="clock" checked={clock() === 'real'} onChange={() => choose('real')} /> {t('story.realTime')}
              </label>
            </fieldset>
            <label class="field">
              <span>{t('story.date')}</span>
              <input type="date" required value={day()} onInput={(event) => setDay(event.currentTarget.value)} />
            </label>
            <p class="muted small-print">{clock() === 'story' ? t('story.storyTimeHint') : t('story.realTimeHint')}</p>
            <div class="row">
              <button type="submit">{t('story.go')}</button>
              <button type="button" class="quiet" onClick={() => setAsking(false)}>
                {t('personas.cancel')}
              </button>
            </div>
          </form>
        </Modal>
      </Show>
    </>
  );
}
