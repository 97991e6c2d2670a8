import { config } from 'zod';

// zod probes `new Function('')` once, to decide whether to compile its object parsers. The app's
// CSP refuses eval, and the browser reports the refused probe as a policy violation even though
// zod catches it; `jitless` skips the probe and parses without compiled code.
config({ jitless: true });
