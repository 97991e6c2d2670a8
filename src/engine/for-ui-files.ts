/**
 * What the UI loads only when a player first reads or writes a file (a card, a SillyTavern chat):
 * the second public module of the engine beside `for-ui.ts`, always imported with `import()` so it
 * stays out of the first visit's bundle.
 */
export { withTextChunks } from './cards/png.ts';
export { PNG_BACKGROUND, withBackgroundAsset } from './cards/assets.ts';
export { readCard } from './cards/read-card.ts';
export { botFromCard } from './cards/card-to-bot.ts';
export { chatFileTooLarge, planChatImport } from './chat-import/plan.ts';
