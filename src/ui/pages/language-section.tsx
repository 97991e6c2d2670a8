import { For } from 'solid-js';
import { browserLanguage, chooseUiLanguage, t, uiLanguageChoice, UI_LANGUAGES, type UiLanguage } from '../i18n/index.ts';
import { nameIn } from '../story-languages.ts';

/** Settings → Language: the interface's language on this device, the browser's unless chosen. */
export function LanguageSection() {
  return (
    <div class="field" data-testid="language-section">
      <label for="ui-language">{t('settings.language.label')}</label>
      <p class="hint" id="ui-language-hint">
        {t('settings.language.hint')}
      </p>
      <select id="ui-language" aria-describedby="ui-language-hint" onChange={(event) => chooseUiLanguage(event.currentTarget.value as UiLanguage | 'auto')}>
        <option value="auto" selected={uiLanguageChoice() === 'auto'}>
          {t('settings.language.auto', nameIn(browserLanguage(), browserLanguage()))}
        </option>
        <For each={UI_LANGUAGES}>
          {(language) => (
            <option value={language} selected={uiLanguageChoice() === language} lang={language}>
              {nameIn(language, language)}
            </option>
          )}
        </For>
      </select>
    </div>
  );
}
