// A protokeel/pool worker script that fails while loading (test/pool-lifecycle.test.ts).
throw new Error("this worker cannot start");
