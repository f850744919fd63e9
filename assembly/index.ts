// Placeholder export surface; the wire core replaces it.
export function version(): i32 {
  return 1;
}
