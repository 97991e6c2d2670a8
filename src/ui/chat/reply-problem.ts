import type { TranscriptTurn } from '../../engine/for-ui.ts';

/** What to tell the user about a reply that did not finish, and what the button does. */
export function replyProblem(turn: TranscriptTurn): { message: string; action: 'Regenerate' | 'Retry' } | null {
  if (turn.role !== 'assistant' || turn.status !== 'truncated') return null;
  switch (turn.reason) {
    case 'stopped':
      return { message: 'You stopped this reply.', action: 'Regenerate' };
    case 'interrupted':
      return { message: 'This reply was interrupted: the tab writing it closed. What arrived before is kept.', action: 'Regenerate' };
    case 'length':
      return { message: 'This reply hit the length limit.', action: 'Regenerate' };
    default:
      return { message: errorMessage(turn.error?.code, turn.error?.message), action: 'Retry' };
  }
}

export function errorMessage(code: string | undefined, detail: string | undefined): string {
  switch (code) {
    case 'upstream_key_rejected':
      return 'The model server rejected the API key. Check FEATHERLESS_API_KEY in .relay.env and restart the relay.';
    case 'upstream_busy':
    case 'too_many_streams':
    case 'queue_timeout':
      return 'The model server is busy right now. Try again in a moment.';
    case 'relay_unreachable':
      return 'The relay cannot be reached: you are offline, or it is not running.';
    case 'upstream_timeout':
      return 'The model took too long to answer.';
    case 'upstream_error':
      return `The model server had a problem${detail ? ` (${detail.replace(/^The model server failed\s*\((\d+)\):\s*/, '$1, ')})` : ''}. Try again.`;
    case 'upstream_unreachable':
      return 'The relay cannot reach the model server.';
    case 'relay_unauthorized':
      return 'The relay refused this app: it needs its token.';
    default:
      return `The reply failed${detail ? `: ${detail}` : '.'}`;
  }
}
