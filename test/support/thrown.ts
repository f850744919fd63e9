/** What `run` throws (as `E`); a test fails when it returns instead. */
export function thrown<E = Error>(run: () => unknown): E {
  try {
    run();
  } catch (e) {
    return e as E;
  }
  throw new Error("expected a throw");
}
