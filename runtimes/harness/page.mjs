// Chromium: the page's module, bundled from the package's ESM build, under the CSP
// script-src 'self' 'wasm-unsafe-eval' (no eval, no inline script; WebAssembly may compile).
import * as protokeel from "protokeel";
import { runSmoke } from "./smoke.mjs";

const violations = [];
document.addEventListener("securitypolicyviolation", (e) => violations.push(`${e.violatedDirective} ${e.blockedURI}`));

// Proof that the policy is in force: the page itself may not evaluate code.
let evalBlocked = false;
try {
  new Function("return 1")();
} catch {
  evalBlocked = true;
}
await new Promise((resolve) => setTimeout(resolve, 50)); // the probe's violation event arrives
const probeViolations = violations.splice(0);

const result = await runSmoke(protokeel);
await new Promise((resolve) => setTimeout(resolve, 50));
window.smokeResult = { ...result, evalBlocked, probeViolations, violations };
