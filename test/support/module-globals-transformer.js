/**
 * ts-jest, with the globals that pixel loops call (Math, Number, the typed arrays, Buffer) bound
 * once per module. Jest runs every module in a vm context, whose global object answers each name
 * lookup through an interceptor: `Math.round` in a loop over a photo's pixels costs about forty
 * times what it does in a real process, enough to make a unit spec of the tone steps take minutes.
 * A module-level binding is read as a plain variable. The objects are the context's own, so
 * nothing behaves differently; only the lookups are cheaper. Production code runs in no vm
 * context and is not transformed. Plain JavaScript: jest loads transformers before any transform.
 */
const { TsJestTransformer } = require('ts-jest');

const GLOBALS = [
  'Math',
  'Number',
  'Buffer',
  'Uint8Array',
  'Uint8ClampedArray',
  'Uint16Array',
  'Int16Array',
  'Uint32Array',
  'Int32Array',
  'Float32Array',
  'Float64Array',
];
// On the first line, after the "use strict" directive that must stay first: no line moves, so
// stack traces and source maps keep their line numbers.
const PRELUDE = `const { ${GLOBALS.join(', ')} } = globalThis;`;
const STRICT = /^("use strict";)/;

class ModuleGlobalsTransformer extends TsJestTransformer {
  process(source, path, options) {
    return this.withPrelude(super.process(source, path, options));
  }

  async processAsync(source, path, options) {
    return this.withPrelude(await super.processAsync(source, path, options));
  }

  getCacheKey(source, path, options) {
    return `${super.getCacheKey(source, path, options)}:module-globals-1`;
  }

  async getCacheKeyAsync(source, path, options) {
    return `${await super.getCacheKeyAsync(source, path, options)}:module-globals-1`;
  }

  withPrelude(result) {
    const code = typeof result === 'string' ? result : result.code;
    const withPrelude = STRICT.test(code) ? code.replace(STRICT, `$1 ${PRELUDE}`) : `${PRELUDE} ${code}`;
    return typeof result === 'string' ? withPrelude : { ...result, code: withPrelude };
  }
}

module.exports = {
  createTransformer: (options) => new ModuleGlobalsTransformer(options),
};
