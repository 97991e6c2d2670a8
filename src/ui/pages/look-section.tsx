import { For, Show } from 'solid-js';
import { look, LOOK_CHOICES, setLook, type Look } from '../look.ts';
import { t } from '../i18n/index.ts';

type Choice = keyof typeof LOOK_CHOICES;

/** Each choice's heading and its options' names, in the interface's language. */
const CHOICE_WORDS: Record<Choice, { legend: () => string; option: (value: string) => string }> = {
  theme: { legend: () => t('look.theme'), option: (v) => t(`look.themes.${v as 'dark'}`) },
  textSize: { legend: () => t('look.textSize'), option: (v) => t(`look.textSizes.${v as 'small'}`) },
  chatWidth: { legend: () => t('look.chatWidth'), option: (v) => t(`look.chatWidths.${v as 'wide'}`) },
  backgroundDim: { legend: () => t('look.backgroundDim'), option: (v) => t(`look.backgroundDims.${v as 'soft'}`) },
  recapAfter: { legend: () => t('look.recapAfter'), option: (v) => t(`look.recapAfters.${v as 'never'}`) },
};

/** Settings → Look: theme, text size, the story's width, the speaker's portrait and chat backgrounds, on this device, at once. */
export function LookSection() {
  const group = (key: Choice) => (
    <fieldset class="look-choice">
      <legend>{CHOICE_WORDS[key].legend()}</legend>
      <div class="row">
        <For each={LOOK_CHOICES[key]}>
          {(value) => (
            <label class="check">
              <input type="radio" name={`look-${key}`} value={value} checked={look()[key] === value} onChange={() => setLook({ [key]: value } as Partial<Look>)} />{' '}
              {CHOICE_WORDS[key].option(value)}
            </label>
          )}
        </For>
      </div>
    </fieldset>
  );
  return (
    <div class="stack" data-testid="look-section">
      {group('theme')}
      {group('textSize')}
      {group('chatWidth')}
      <label class="check">
        <input type="checkbox" checked={look().portrait} onChange={(event) => setLook({ portrait: event.currentTarget.checked })} /> {t('look.portrait')}
      </label>
      <label class="check">
        <input type="checkbox" checked={look().backgrounds} onChange={(event) => setLook({ backgrounds: event.currentTarget.checked })} /> {t('look.backgrounds')}
      </label>
      <Show when={look().backgrounds}>{group('backgroundDim')}</Show>
      {group('recapAfter')}
      <label class="check">
        <input type="checkbox" aria-describedby="remote-images-hint" checked={look().remoteImages} onChange={(event) => setLook({ remoteImages: event.currentTarget.checked })} /> {t('moreWords.remoteImages')}
      </label>
      <p class="hint" id="remote-images-hint">
        {t('moreWords.remoteImagesHint')}
      </p>
      <p class="muted small-text">{t('moreWords.lookKept')}</p>
    </div>
  );
}
