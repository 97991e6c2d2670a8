import { For, Show } from 'solid-js';
import { look, LOOK_CHOICES, setLook, type Look } from '../look.ts';

type Choice = keyof typeof LOOK_CHOICES;

/** Settings → Look: theme, text size, the story's width, the speaker's portrait and chat backgrounds, on this device, at once. */
export function LookSection() {
  const group = (key: Choice, legend: string) => (
    <fieldset class="look-choice">
      <legend>{legend}</legend>
      <div class="row">
        <For each={LOOK_CHOICES[key]}>
          {([value, label]) => (
            <label class="check">
              <input type="radio" name={`look-${key}`} value={value} checked={look()[key] === value} onChange={() => setLook({ [key]: value } as Partial<Look>)} /> {label}
            </label>
          )}
        </For>
      </div>
    </fieldset>
  );
  return (
    <div class="stack" data-testid="look-section">
      {group('theme', 'Theme')}
      {group('textSize', 'Text size')}
      {group('chatWidth', 'Story width')}
      <label class="check">
        <input type="checkbox" checked={look().portrait} onChange={(event) => setLook({ portrait: event.currentTarget.checked })} /> Show the speaker’s portrait
        beside the story on wide screens
      </label>
      <label class="check">
        <input type="checkbox" checked={look().backgrounds} onChange={(event) => setLook({ backgrounds: event.currentTarget.checked })} /> Show chat backgrounds
      </label>
      <Show when={look().backgrounds}>{group('backgroundDim', 'Dim backgrounds')}</Show>
      {group('recapAfter', '“Previously on…” after being away')}
      <label class="check">
        <input type="checkbox" aria-describedby="remote-images-hint" checked={look().remoteImages} onChange={(event) => setLook({ remoteImages: event.currentTarget.checked })} /> Show remote images
      </label>
      <p class="hint" id="remote-images-hint">
        Pictures from other sites in stories and card notes, fetched through your relay (no cookies, no page address). Off, they show as links: loading one
        tells its site that you opened the story or card.
      </p>
      <p class="muted small-text">Kept on this device only: a phone and a laptop can each look their own way.</p>
    </div>
  );
}
