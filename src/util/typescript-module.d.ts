// The compiler bundled by ts-morph, as src/util/typescript.cts requires it: ts-morph's `ts`.
declare module '@ts-morph/common/dist/typescript.js' {
  import morph = require('ts-morph');
  export = morph.ts;
}
