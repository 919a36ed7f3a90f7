// The pages' scripts: web/<name>.ts → dist/web/<name>.js, bundled by build-web.mjs. Kept apart from it so that
// the build's freshness check (build-state.mjs) can read the list without loading esbuild.
export const PAGE_SCRIPTS = ['submit', 'monitor'];
