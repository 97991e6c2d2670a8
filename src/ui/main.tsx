import { render } from 'solid-js/web';
import { App } from './app.tsx';
import { acceptPairingLink } from './pairing-link.ts';
import './styles.css';

// A pairing link's token is kept before anything talks to the relay.
acceptPairingLink();
const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
render(() => <App />, root);
