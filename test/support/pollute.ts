// Pollutes Object.prototype for a test, as a real pollution does, and takes it back after each
// test of the file that calls `polluting()`.
import { afterEach } from "vitest";

const proto = Object.prototype as Record<string, unknown>;
const added: string[] = [];

/** Adds an enumerable property `name` to Object.prototype (an assignment makes it enumerable). */
export function pollute(name: string, value: unknown): void {
  proto[name] = value;
  added.push(name);
}

/** Registers the clean-up: every property `pollute` added is deleted after each test. */
export function polluting(): void {
  afterEach(() => {
    for (const n of added.splice(0)) delete proto[n];
  });
}
