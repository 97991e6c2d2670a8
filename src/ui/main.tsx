// The first screen makes no schema: zod loads with the first screen that does, through
// engine/for-ui.ts, which tells it not to probe for eval before any schema is made.
import { render } from 'solid-js/web';
import { logPolicyViolations } from '../browser/policy-violations.ts';
import { allowOwnScriptsOnly } from '../browser/trusted-types.ts';
import { App } from './app.tsx';
import { startLook } from './look.ts';
import { loadUiLanguage } from './i18n/index.ts';
import { loadFirstChatList } from './first-chat-list.ts';
import { hasDeviceToken, PAIR, relayToken } from './relay-token.ts';
import './styles.css';

// Before anything starts a worker or registers the service worker.
logPolicyViolations();
allowOwnScriptsOnly();
// A pairing link's code is traded for this device's token before anything talks to the relay. A
// relay token kept from before is traded for one too, without holding the first screen back.
// Each loads only when there is something to trade.
let paired: Promise<unknown> | undefined;
if (location.hash.startsWith(PAIR)) paired = import('./pairing-link.ts').then((m) => m.acceptPairingLink());
else if (relayToken() && !hasDeviceToken()) void import('./device-token.ts').then((m) => m.tradeKeptRelayToken());
// The player's theme and text size, before anything is drawn.
startLook();
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
// The interface's words in the player's language, fetched before the first screen (English is at
// hand), and on the chat list the list as the leader last kept it, painted before the database opens.
const onTheList = location.pathname === '/' || location.pathname === '/chats';
void Promise.allSettled([loadUiLanguage(), paired, onTheList ? loadFirstChatList() : undefined]).finally(() => render(() => <App />, root));
