// First, so no schema is parsed before zod is told not to probe for eval.
import '../browser/zod-without-eval.ts';
import { render } from 'solid-js/web';
import { logPolicyViolations } from '../browser/policy-violations.ts';
import { allowOwnScriptsOnly } from '../browser/trusted-types.ts';
import { App } from './app.tsx';
import { startLook } from './look.ts';
import { acceptPairingLink } from './pairing-link.ts';
import './styles.css';

// Before anything starts a worker or registers the service worker.
logPolicyViolations();
allowOwnScriptsOnly();
// A pairing link's token is kept before anything talks to the relay.
acceptPairingLink();
// The player's theme and text size, before anything is drawn.
startLook();
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
render(() => <App />, root);
