// DynamicMessage.create from plain init objects: N list elements of messages, and an init object
// nested N deep (converted without recursion).
import { pk, typeOf } from "../lib.mjs";

const type = typeOf(`syntax = "proto3"; message Node { Node next = 1; int32 v = 2; repeated Node kids = 3; map<string, Node> named = 4; string s = 5; }`, "Node", { maxDepth: 10_000 });

export const family = {
  name: "values: create from N-element and N-deep init objects",
  sizes: [1e2, 1e3, 1e4],
  prepare: (n) => {
    let deep = { v: 1 };
    for (let i = 1; i < n; i++) deep = { v: i, next: deep };
    const kids = Array.from({ length: n }, (_, i) => ({ v: i, s: `k${i}` }));
    const named = Object.fromEntries(Array.from({ length: n }, (_, i) => [`n${i}`, { v: i }]));
    return { deep, wide: { kids, named } };
  },
  run: ({ deep, wide }) => {
    pk.DynamicMessage.create(type.descriptor, deep);
    pk.DynamicMessage.create(type.descriptor, wide);
  },
};
