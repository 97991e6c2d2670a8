import { createSignal, For, Show } from 'solid-js';
import { useClient } from '../context.ts';
import { createLiveQuery } from '../live-query.ts';
import { BOT_KINDS } from '../query-kinds.ts';

/** The bot list, and (until the full authoring form lands) a quick way to create one. */
export function BotsPage() {
  const client = useClient();
  const bots = createLiveQuery(client, { kinds: BOT_KINDS }, () => client.engine.listBots());
  const [error, setError] = createSignal<string | null>(null);
  const [saving, setSaving] = createSignal(false);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setSaving(true);
    setError(null);
    try {
      await client.engine.append([
        {
          kind: 'bot_authored',
          payload: {
            botId: crypto.randomUUID(),
            name: String(data.get('name') ?? ''),
            persona: String(data.get('persona') ?? ''),
            voiceSamples: [],
            traits: [],
            backstory: '',
            initialRelationship: '',
            kickoff: '',
          },
        },
      ]);
      form.reset();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setSaving(false);
    }
  };

  return (
    <section aria-labelledby="bots-title">
      <h1 id="bots-title">Bots</h1>
      <form class="stack" onSubmit={submit} aria-label="New bot">
        <label>
          Name
          <input name="name" required maxLength={80} autocomplete="off" />
        </label>
        <label>
          Persona
          <textarea name="persona" rows={3} />
        </label>
        <Show when={error()}>{(message) => <p class="error" role="alert">{message()}</p>}</Show>
        <button type="submit" disabled={saving()}>
          Create bot
        </button>
      </form>
      <Show when={bots()} fallback={<p class="muted">Loading…</p>}>
        {(list) => (
          <Show when={list().length > 0} fallback={<p class="muted">No bots yet.</p>}>
            <ul class="cards" aria-label="Bots">
              <For each={list()}>
                {(bot) => (
                  <li class="card">
                    <strong>{bot.name}</strong>
                    <Show when={bot.persona}>
                      <p class="muted">{bot.persona}</p>
                    </Show>
                  </li>
                )}
              </For>
            </ul>
          </Show>
        )}
      </Show>
    </section>
  );
}
