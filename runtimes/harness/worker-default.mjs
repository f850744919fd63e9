// workerd with the default entry (no "workerd" condition): workerd refuses to compile WebAssembly
// from bytes, so the first codec call fails with the documented error; after initWasm(module)
// with the module workerd compiled from protokeel/protokeel.wasm, everything works.
import * as protokeel from "protokeel";
import wasmModule from "protokeel/protokeel.wasm";
import { descriptorSets } from "./descriptor-sets.mjs";
import { runSmoke } from "./smoke.mjs";

export default {
  async fetch() {
    const fileDescriptorSet = Uint8Array.from(atob(descriptorSets.v1), (c) => c.charCodeAt(0));
    const type = protokeel.ProtobufType.of({ fileDescriptorSet, messageName: "smoke.Order" });
    let before;
    try {
      type.createSerializer().fromBinary(new Uint8Array([0x08, 0x01]));
      before = { threw: false };
    } catch (e) {
      before = { threw: true, name: e.name, code: e.code, message: e.message };
    }
    protokeel.initWasm(wasmModule);
    return Response.json({ before, ...(await runSmoke(protokeel)) });
  },
};
