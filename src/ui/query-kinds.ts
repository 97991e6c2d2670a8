/** Which event kinds change which screens' data: the live queries' refetch triggers. */
export const BOT_KINDS = ['bot_authored', 'bot_reset', 'manual_edit'] as const;
export const YOU_KINDS = ['you_authored', 'manual_edit'] as const;
export const CHAT_LIST_KINDS = ['chat_created', 'clock_advanced', 'assistant_turn', 'user_turn', 'bot_authored', 'manual_edit'] as const;
export const SETTINGS_KINDS = ['settings_changed'] as const;
export const FAILURE_KINDS = ['classifier_failed'] as const;
export const TRANSCRIPT_KINDS = ['user_turn', 'assistant_turn_started', 'assistant_turn', 'manual_edit', 'chat_rewound', 'rewind_undone', 'you_authored', 'bot_authored'] as const;
export const CHAT_HEADER_KINDS = ['chat_created', 'clock_advanced', 'manual_edit', 'scene_opened', 'scene_closed', 'container_created', 'activity_change', 'edge_update', 'edge_summary_rewritten', 'memory_written', 'memory_pin_changed', 'memory_summary_rewritten', 'memory_significance_set', 'bot_reset', 'turn_analyzed', 'scene_summarized', 'chat_rewound', 'rewind_undone', 'you_authored', 'bot_authored'] as const;
/** What starts or ends background work on a chat: the "updating memories" marker. */
export const ANALYSIS_KINDS = ['assistant_turn', 'turn_analyzed', 'scene_closed', 'scene_summarized', 'chat_rewound', 'rewind_undone'] as const;
