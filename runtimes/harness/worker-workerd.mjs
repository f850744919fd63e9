// workerd through the "workerd" export condition (dist/workerd.js), bundled as wrangler does:
// the core arrives as the wasm module "protokeel.wasm" that the entry imports.
import * as protokeel from "protokeel";
import { runSmoke } from "./smoke.mjs";

export default {
  async fetch() {
    return Response.json(await runSmoke(protokeel));
  },
};
