/**
 * The Trusted Types `default` policy, for the page and each of its workers. The relay's CSP makes
 * every string handed to a script sink go through a policy; code we do not write (Vite's worker
 * start-up, workbox-window registering the service worker) hands plain strings, so the default
 * policy takes a script URL when it is of this origin and refuses any other. It has no `createHTML`:
 * markup reaches the DOM only through Solid's compiled templates or DOMPurify.
 */
export function allowOwnScriptsOnly(scope: typeof globalThis = globalThis): void {
  const types = (scope as { trustedTypes?: TrustedTypesFactory }).trustedTypes;
  if (!types || types.defaultPolicy) return;
  const here = scope.location;
  types.createPolicy('default', {
    createScriptURL(url: string) {
      const target = new URL(url, here.href);
      if (target.origin !== here.origin) throw new TypeError(`Refused to run a script from ${target.origin}: the app runs only its own.`);
      return url;
    },
  });
}

interface TrustedTypesFactory {
  defaultPolicy: unknown;
  createPolicy(name: string, rules: { createScriptURL(url: string): string }): unknown;
}
