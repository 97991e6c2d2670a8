import type { Plugin } from 'vite';

const SINK = 't.innerHTML = html;';
const SOLID_WEB = /[\\/]solid-js[\\/]web[\\/]dist[\\/](web|dev)\.js$/;

/**
 * Solid builds each JSX template once by setting a <template>'s innerHTML to the compiler's static
 * markup. Under the app's Trusted Types policy a plain string there is refused, so the assignment
 * goes through a policy of its own, `solid-templates`, which only Solid's `template()` holds: the
 * strings it sees are the compiled templates of our own source, never text from a card or a model.
 * Fails the build if Solid's code changed shape, rather than shipping an app that cannot render.
 */
export function solidTrustedTemplates(): Plugin {
  return {
    name: 'solid-trusted-templates',
    enforce: 'pre',
    transform(code, id) {
      if (!SOLID_WEB.test(id.split('?')[0]!)) return null;
      if (code.split(SINK).length !== 2) throw new Error(`solid-trusted-templates: ${id} no longer has exactly one "${SINK}"; update the plugin for this Solid version`);
      const policy =
        'const solidTemplatePolicy = typeof trustedTypes === "object" && trustedTypes?.createPolicy ? trustedTypes.createPolicy("solid-templates", { createHTML: (markup) => markup }) : null;\n';
      return { code: policy + code.replace(SINK, 't.innerHTML = solidTemplatePolicy ? solidTemplatePolicy.createHTML(html) : html;'), map: null };
    },
  };
}
