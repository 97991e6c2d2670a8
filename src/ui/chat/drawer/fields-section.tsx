import { createSignal, For, Show } from 'solid-js';
import { t } from '../../i18n/index.ts';
import { FIELD_TYPES, fieldText, type FieldDef, type TrackedField } from '../../../engine/for-ui.ts';
import { fieldKindText } from '../../field-kind.ts';
import { Editable } from '../editable.tsx';
import type { DrawerScope } from './drawer-scope.ts';
import { ValueOrigin } from './value-origin.tsx';


/**
 * Fields of the player's own (issue 33, part 4): "Outfit" for each character, "Tension 0–100" for
 * the chat. Filled by the same one analysis call per reply, set by hand here, and saved on the bot
 * so its next chats (and its card) keep them.
 */
export function FieldsSection(props: { d: DrawerScope }) {
  const d = props.d;
  const [adding, setAdding] = createSignal(false);
  const owners = (field: TrackedField) => (field.def.per === 'chat' ? [''] : Object.keys(d.drawer().names));
  const hostName = () => d.name(Object.keys(d.drawer().names).find((ref) => ref !== 'you') ?? '');
  const value = (field: TrackedField, owner: string) => {
    const label = owner ? t('fields.whose', d.name(owner), field.def.name) : field.def.name;
    const current = field.values[owner];
    const target = { type: 'field_value' as const, id: `${field.def.id}:${owner}` };
    const save = (v: unknown) => d.client.engine.setFieldValue(d.chatId(), field.def.id, owner, v);
    const origin = <ValueOrigin d={d} target={target} field="value" label={label} />;
    return (
      <li data-testid="field-value" class="small-text">
        <span class="muted">{owner ? `${d.name(owner)}: ` : ''}</span>
        <Show
          when={field.def.type === 'choice'}
          fallback={
            <Editable label={label} value={fieldText(current)} save={save} actions={origin}>
              {current === undefined ? <span class="muted">{t('fields.notYet')}</span> : fieldText(current)}
            </Editable>
          }
        >
          <select aria-label={label} value={typeof current === 'string' ? current : ''} disabled={d.busy()} onChange={(e) => void d.act(() => save(e.currentTarget.value))}>
            <option value="" disabled>
              {t('fields.notYet')}
            </option>
            <For each={field.def.choices ?? []}>{(c) => <option value={c}>{c}</option>}</For>
          </select>
          {origin}
        </Show>
      </li>
    );
  };
  return (
    <section aria-labelledby="drawer-fields">
      <h2 id="drawer-fields">{t('drawer.fields')}</h2>
      <Show when={d.drawer().fields.length} fallback={<p class="muted small-text">{t('drawer.fieldsNone')}</p>}>
        <ul class="plain fields">
          <For each={d.drawer().fields}>
            {(field) => (
              <li data-testid="field">
                <p class="field-title">
                  <strong>{field.def.name}</strong> <span class="muted small-text">({fieldKindText(field.def)})</span>
                  <button type="button" class="small quiet" aria-label={t('fields.remove', field.def.name)} disabled={d.busy()} onClick={() => void d.act(() => d.client.engine.removeField(d.chatId(), field.def.id))}>
                    ✕
                  </button>
                </p>
                <Show when={field.def.about}>
                  <p class="muted small-text">{field.def.about}</p>
                </Show>
                <ul class="plain" aria-label={field.def.name}>
                  <For each={owners(field)}>{(owner) => value(field, owner)}</For>
                </ul>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <Show
        when={adding()}
        fallback={
          <div class="button-row">
            <button type="button" class="small" onClick={() => setAdding(true)}>
              {t('fields.addField')}
            </button>
            <Show when={d.drawer().fields.length}>
              <button type="button" class="small quiet" disabled={d.busy()} onClick={() => void d.act(() => d.client.engine.saveFieldsOnBot(d.chatId()))} title={t('fields.saveOnBotHint')}>
                {t('fields.saveOnBot', hostName())}
              </button>
            </Show>
          </div>
        }
      >
        <AddField d={d} onDone={() => setAdding(false)} />
      </Show>
    </section>
  );
}

function AddField(props: { d: DrawerScope; onDone: () => void }) {
  const d = props.d;
  const [type, setType] = createSignal<FieldDef['type']>('text');
  return (
    <form
      class="stack add-field"
      aria-label={t('fields.add')}
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const text = (name: string) => String(form.get(name) ?? '').trim();
        const field = {
          name: text('name'),
          about: text('about'),
          type: type(),
          per: text('per'),
          ...(type() === 'number' ? { min: Number(text('min')), max: Number(text('max')) } : {}),
          ...(type() === 'choice' ? { choices: text('choices').split(',').map((c) => c.trim()).filter(Boolean) } : {}),
        };
        void d.act(() => d.client.engine.addField(d.chatId(), field)).then(() => !d.error() && props.onDone());
      }}
    >
      <label>
        {t('fields.name')} <input name="name" required maxLength={40} placeholder={t('fields.namePlaceholder')} />
      </label>
      <label>
        {t('fields.about')} <input name="about" maxLength={300} placeholder={t('fields.aboutPlaceholder')} />
      </label>
      <label>
        {t('fields.type')}
        <select name="type" value={type()} onChange={(e) => setType(e.currentTarget.value as FieldDef['type'])}>
          <For each={FIELD_TYPES}>{(kind) => <option value={kind}>{t(`fields.types.${kind}`)}</option>}</For>
        </select>
      </label>
      <Show when={type() === 'number'}>
        <div class="row">
          <label>
            {t('fields.lowest')} <input name="min" type="number" value="0" required />
          </label>
          <label>
            {t('fields.highest')} <input name="max" type="number" value="100" required />
          </label>
        </div>
      </Show>
      <Show when={type() === 'choice'}>
        <label>
          {t('fields.choices')} <input name="choices" required placeholder={t('fields.choicesPlaceholder')} />
        </label>
      </Show>
      <label>
        {t('fields.kept')}
        <select name="per">
          <option value="character">{t('fields.perCharacter')}</option>
          <option value="chat">{t('fields.perChat')}</option>
        </select>
      </label>
      <div class="button-row">
        <button type="submit" class="small" disabled={d.busy()}>
          {t('fields.addButton')}
        </button>
        <button type="button" class="small quiet" onClick={() => props.onDone()}>
          {t('fields.cancel')}
        </button>
      </div>
    </form>
  );
}
