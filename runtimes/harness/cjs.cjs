// Node CJS: the package through `require` (the "require" condition: dist/index.cjs).
const protokeel = require("protokeel");

import("./smoke.mjs")
  .then(({ runSmoke }) => runSmoke(protokeel))
  .then((result) => console.log(`SMOKE ${JSON.stringify({ entry: require.resolve("protokeel"), ...result })}`));
