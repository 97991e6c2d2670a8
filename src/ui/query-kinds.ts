/** Which event kinds change which screens' data: the live queries' refetch triggers. */
export const BOT_KINDS = ['bot_authored', 'bot_reset', 'manual_edit'] as const;
export const YOU_KINDS = ['you_authored', 'manual_edit'] as const;
export const CHAT_LIST_KINDS = ['chat_created', 'clock_advanced', 'assistant_turn', 'user_turn', 'bot_authored', 'manual_edit'] as const;
export const SETTINGS_KINDS = ['settings_changed'] as const;
export const FAILURE_KINDS = ['classifier_failed'] as const;
