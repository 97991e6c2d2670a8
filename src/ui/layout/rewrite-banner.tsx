import { t } from '../i18n/index.ts';

/** The once-only rewrite of an older database as it opens (`worker/rewrite-database.ts`), and how far it has come. */
export function RewriteBanner(props: { fraction: number }) {
  const percent = () => Math.floor(props.fraction * 100);
  return (
    <p class="banner info" data-banner="rewrite">
      <span class="banner-text">{t('shell.rewriting', percent())}</span>
      <progress aria-label={t('shell.rewriteProgress')} value={percent()} max={100} />
    </p>
  );
}
