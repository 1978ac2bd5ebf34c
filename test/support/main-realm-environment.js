/**
 * Jest's Node environment, with some of Node's main-realm constructors in place of the test
 * realm's own. Jest runs each test file in a separate realm, but onnxruntime-node creates its
 * output tensors' arrays in Node's main realm, and onnxruntime-common checks them with
 * `instanceof Float32Array` (float16 outputs: `instanceof Uint16Array`, made a Float16Array
 * where Node has one) against the test realm's constructors, so every inference would fail
 * under jest (jestjs/jest#2549). Production code runs in one realm and needs none of this.
 * Plain JavaScript: jest loads test environments before any transform.
 */
const { TestEnvironment } = require('jest-environment-node');

class MainRealmEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.Float32Array = Float32Array;
    this.global.Uint16Array = Uint16Array;
    if (typeof Float16Array !== 'undefined') this.global.Float16Array = Float16Array;
  }
}

module.exports = MainRealmEnvironment;
