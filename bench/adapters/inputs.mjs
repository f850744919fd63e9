// What every adapter's prepare(fixture) starts from: the encode inputs of one fixture, built
// outside any timed loop.
// - value/values: the library's own built value(s), for encode (`build` makes a fresh one per
//   timed call, so sizes memoized on a value are not what gets timed);
// - plain/plains: the library's plain object form, for encode from a plain object; built once,
//   since a plain object carries no memo (the check confirms writing it leaves it unchanged).

/**
 * @param {import("../lib/fixtures.mjs").Fixture} fixture
 * @param {(content: object) => unknown} build content → a built value
 * @param {(content: object) => object} toPlain content → the plain object form
 */
export function encodeInputs(fixture, build, toPlain) {
  const message = fixture.kind === "message";
  return {
    build,
    value: message ? build(fixture.content) : undefined,
    values: message ? undefined : fixture.contents.map(build),
    plain: message ? toPlain(fixture.content) : undefined,
    plains: message ? undefined : fixture.contents.map(toPlain),
  };
}
