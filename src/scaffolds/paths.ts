/** Files of a generated project that more than one command reads or writes. */

/** The license header every generated TypeScript file starts with (`init --license`, `edit --license`). */
export const BOILERPLATE_FILE = 'hack/boilerplate.ts.txt';
