/** What `run` throws (as `E`); a test fails when it returns instead. */
export function thrown<E = Error>(run: () => unknown): E {
  try {
    run();
  } catch (e) {
    return e as E;
  }
  throw new Error("expected a throw");
}

/** What `run`'s promise rejects with (as `E`); a test fails when it resolves instead. */
export async function rejection<E = Error>(run: () => Promise<unknown>): Promise<E> {
  try {
    await run();
  } catch (e) {
    return e as E;
  }
  throw new Error("expected a rejection");
}
