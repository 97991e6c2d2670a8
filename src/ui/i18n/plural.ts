/**
 * A count in a sentence, by the language's own plural rules (`Intl.PluralRules`: English has one
 * and other, Russian one, few, many and other, Japanese only other). `#` is the number, formatted
 * for the language.
 */
export type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

export const plural =
  (locale: string, forms: PluralForms) =>
  (n: number): string =>
    (forms[new Intl.PluralRules(locale).select(n)] ?? forms.other).replaceAll('#', new Intl.NumberFormat(locale).format(n));
