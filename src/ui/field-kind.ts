import type { FieldDef } from '../engine/for-ui.ts';
import { t } from './i18n/index.ts';

/** What kind of value a field of the player's own holds, in the interface's words ("number 0–100"). */
export const fieldKindText = (def: FieldDef): string =>
  def.type === 'number' ? t('fieldKind.number', def.min ?? 0, def.max ?? 0) : def.type === 'choice' ? t('fieldKind.choice', (def.choices ?? []).join(', ')) : t(`fields.types.${def.type}`).toLowerCase();
