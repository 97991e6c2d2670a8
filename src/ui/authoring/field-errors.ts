import type { z } from 'zod';
import { t, uiLanguage } from '../i18n/index.ts';

/**
 * zod issues as "field -> message", for showing each message beside its field. English keeps the
 * schema's own words; another interface language says the two rules a form breaks (empty, too
 * long) in its own, and anything rarer as the schema says it.
 */
export function fieldErrors(error: z.ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.join('.');
    errors[key] ??= messageOf(issue);
  }
  return errors;
}

function messageOf(issue: z.core.$ZodIssue): string {
  if (uiLanguage() === 'en') return issue.message;
  if (issue.code === 'too_small' && issue.origin === 'string' && Number(issue.minimum) === 1) return t('form.required');
  if (issue.code === 'too_big' && issue.origin === 'string') return t('form.atMost', Number(issue.maximum));
  return issue.message;
}
