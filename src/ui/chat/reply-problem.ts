import type { TranscriptTurn } from '../../engine/for-ui.ts';
import { t } from '../i18n/index.ts';

/** What to tell the user about a reply that did not finish, and what the button does. */
export function replyProblem(turn: TranscriptTurn): { message: string; action: 'Regenerate' | 'Retry' } | null {
  if (turn.role !== 'assistant' || turn.status !== 'truncated') return null;
  switch (turn.reason) {
    case 'stopped':
      return { message: t('problem.stopped'), action: 'Regenerate' };
    case 'interrupted':
      return { message: t('problem.interrupted'), action: 'Regenerate' };
    case 'length':
      return { message: t('problem.length'), action: 'Regenerate' };
    default:
      return { message: errorMessage(turn.error?.code, turn.error?.message), action: 'Retry' };
  }
}

export function errorMessage(code: string | undefined, detail: string | undefined): string {
  switch (code) {
    case 'upstream_key_rejected':
      return t('problem.keyRejected');
    case 'upstream_busy':
    case 'too_many_streams':
    case 'queue_timeout':
      return t('problem.busy');
    case 'relay_unreachable':
      return t('problem.relayUnreachable');
    case 'upstream_timeout':
      return t('problem.timeout');
    case 'upstream_error':
      return t('problem.upstreamError', detail ? ` (${detail.replace(/^The model server failed\s*\((\d+)\):\s*/, '$1, ')})` : '');
    case 'upstream_unreachable':
      return t('problem.upstreamUnreachable');
    case 'relay_unauthorized':
      return t('problem.unauthorized');
    default:
      return detail ? t('problem.failedBecause', detail) : t('problem.failed');
  }
}
