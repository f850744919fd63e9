// Schemas of every size for the descriptor-side growth sweeps and test/adversarial: built
// programmatically as google.protobuf.FileDescriptorSet messages (no generated fixtures). Each
// builder takes a `variant`: "saved" or "current", where "current" makes one documented change
// that the evaluator reports, so evaluations do real work on every pair.
import { create, createFileRegistry, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

const MESSAGE = 11;
const INT32 = 5;
const INT64 = 3;
const UINT32 = 13;
const STRING = 9;
const ENUM = 14;
const OPTIONAL = 1;
const MAX_FIELD_NUMBER = 536_870_911;

/** Field number `i + 1`, stepping over 19000..19999 (reserved by protobuf). */
export function denseNumber(i) {
  return i + 1 < 19_000 ? i + 1 : i + 1001;
}

function field(name, number, type, typeName) {
  const f = { name, number, label: OPTIONAL, type, jsonName: jsonName(name) };
  if (typeName !== undefined) f.typeName = typeName;
  return f;
}

function jsonName(name) {
  return name.replace(/_(.)/g, (_m, c) => c.toUpperCase());
}

function file(name, pkg, messageType, dependency = []) {
  return { name, package: pkg, syntax: "proto3", dependency, messageType };
}

/** A FileDescriptorSet message of these file inits. */
export function setOf(files) {
  return create(FileDescriptorSetSchema, { file: files });
}

/** The encoded set, for `{ fileDescriptorSet, messageName }` inputs. */
export function bytesOf(set) {
  return toBinary(FileDescriptorSetSchema, set);
}

/** The DescMessage `name` of a registry over `set`. */
export function messageOf(set, name) {
  const m = createFileRegistry(set).getMessage(name);
  if (m === undefined) throw new Error(`no message ${name}`);
  return m;
}

/**
 * `s.Root` with n fields, field i referencing the top-level `s.M<i>` (each `int32 v = 1`): n
 * top-level types, all ready at once when files are ordered. current: `s.M<n-1>.v` is int64
 * (a compatible widening: the evaluator compares every pair and finds nothing).
 */
export function manyTypes(n, variant = "saved") {
  const root = { name: "Root", field: [] };
  const types = [];
  for (let i = 0; i < n; i++) {
    root.field.push(field(`m${i}`, denseNumber(i), MESSAGE, `.s.M${i}`));
    const t = variant === "current" && i === n - 1 ? INT64 : INT32;
    types.push({ name: `M${i}`, field: [field("v", 1, t)] });
  }
  return setOf([file("s/many.proto", "s", [root, ...types])]);
}

/** Field number i of n spread over 1..536,870,911, outside 19000..19999, ascending. */
export function sparseNumber(i, n) {
  const k = 1 + Math.floor((i * (MAX_FIELD_NUMBER - 1001)) / n);
  return k < 19_000 ? k : k + 1000;
}

/**
 * `s.Sparse` with n int32 fields `f<i>` whose numbers spread up to 536,870,911 (and `int32 last
 * = 536870911`), reserving the number after each field and the names `old<i>`: n reserved
 * ranges and names, so every added, removed or renamed field is checked against n of them.
 * current: `f0` is removed without being reserved (one FIELD_REMOVED_NOT_RESERVED), the other
 * odd-numbered `f<i>` are removed with number and name reserved (no finding), the other even
 * ones are renamed `g<i>` (FIELD_RENAMED notes).
 */
export function sparseFields(n, variant = "saved") {
  const fields = [];
  const reservedRange = [];
  const reservedName = [];
  for (let i = 0; i < n; i++) {
    const number = sparseNumber(i, n);
    reservedRange.push({ start: number + 1, end: number + 2 });
    reservedName.push(`old${i}`);
    if (variant === "saved") fields.push(field(`f${i}`, number, INT32));
    else if (i % 2 === 0 && i > 0) fields.push(field(`g${i}`, number, INT32));
    else if (i % 2 === 1) {
      reservedRange.push({ start: number, end: number + 1 });
      reservedName.push(`f${i}`);
    }
  }
  fields.push(field("last", MAX_FIELD_NUMBER, INT32));
  return setOf([file("s/sparse.proto", "s", [{ name: "Sparse", field: fields, reservedRange, reservedName }])]);
}

/**
 * `s.Wide` with `int64 id = 1` and a oneof of n int32 members (numbers 2..). saved: two oneofs
 * `a` and `b` of n/2 members each; current: one oneof `choice` of all n (one
 * ONEOF_FIELDS_MERGED, one ONEOF_RENAMED).
 */
export function wideOneof(n, variant = "saved") {
  const fields = [field("id", 1, INT64)];
  const oneofs = variant === "current" ? [{ name: "choice" }] : [{ name: "a" }, { name: "b" }];
  for (let i = 0; i < n; i++) {
    const f = field(`c${i}`, denseNumber(i + 1), INT32);
    f.oneofIndex = variant === "current" || i < n / 2 ? 0 : 1;
    fields.push(f);
  }
  return setOf([file("s/wide.proto", "s", [{ name: "Wide", field: fields, oneofDecl: oneofs }])]);
}

/**
 * `s.Many` with n/2 oneofs `o<i>` of two int32 members each. current: every oneof is renamed
 * `p<i>` (n/2 ONEOF_RENAMED notes: each rename asks whether the old name is still a oneof).
 */
export function manyOneofs(n, variant = "saved") {
  const fields = [];
  const oneofs = [];
  for (let i = 0; i < n / 2; i++) {
    oneofs.push({ name: variant === "current" ? `p${i}` : `o${i}` });
    for (const k of [0, 1]) {
      const f = field(`c${2 * i + k}`, denseNumber(2 * i + k), INT32);
      f.oneofIndex = i;
      fields.push(f);
    }
  }
  return setOf([file("s/oneofs.proto", "s", [{ name: "Many", field: fields, oneofDecl: oneofs }])]);
}

/**
 * `s.Holder { s.Alias a = 1; }` where enum `s.Alias` (allow_alias) gives number 0 n names
 * `A<i>`, and number 1 the name `ONE`. current: the names are `B<i>` (one ENUM_VALUE_RENAMED
 * note listing n old and n new names).
 */
export function enumAliases(n, variant = "saved") {
  const value = [];
  for (let i = 0; i < n; i++) value.push({ name: `${variant === "current" ? "B" : "A"}${i}`, number: 0 });
  value.push({ name: "ONE", number: 1 });
  const holder = { name: "Holder", field: [field("a", 1, ENUM, ".s.Alias")] };
  const alias = { name: "Alias", value, options: { allowAlias: true } };
  return setOf([{ ...file("s/alias.proto", "s", [holder]), enumType: [alias] }]);
}

/**
 * The chain `s.T0 → s.T1 → … → s.T<n-1>` of top-level types in one file: each has `int32 v = 1`
 * and (all but the last) `T<i+1> next = 2`. cycle: the last references T0, so all n are one
 * strongly connected component. current: the last type's `v` is uint32 (one FIELD_TYPE_CHANGED
 * at the end of an n-long path); every: each type's is (n findings, the i-th with an i-long path).
 */
export function chain(n, { cycle = false, variant = "saved" } = {}) {
  const types = [];
  for (let i = 0; i < n; i++) {
    const last = i === n - 1;
    const v = field("v", 1, (variant === "current" && last) || variant === "every" ? UINT32 : INT32);
    const next = last ? (cycle ? ".s.T0" : undefined) : `.s.T${i + 1}`;
    types.push({ name: `T${i}`, field: next === undefined ? [v] : [v, field("next", 2, MESSAGE, next)] });
  }
  return setOf([file("s/chain.proto", "s", types)]);
}

/**
 * The chain across n files and packages: file `p<i>/t.proto` declares `p<i>.T` and imports the
 * next file. `order` "dependencies-first" is what protoc writes; "dependents-first" lists the
 * root's file first.
 */
export function chainFiles(n, { order = "dependencies-first" } = {}) {
  const files = [];
  for (let i = 0; i < n; i++) {
    const last = i === n - 1;
    const fields = [field("v", 1, STRING)];
    if (!last) fields.push(field("next", 2, MESSAGE, `.p${i + 1}.T`));
    files.push(file(`p${i}/t.proto`, `p${i}`, [{ name: "T", field: fields }], last ? [] : [`p${i + 1}/t.proto`]));
  }
  if (order === "dependencies-first") files.reverse();
  return setOf(files);
}

/**
 * `s.N` with `depth` nested levels `s.N.N.….N`, each referencing the next: `N next = 1`.
 * Built bottom-up, one level at a time, so no builder recursion follows the depth.
 */
export function nestedChain(depth) {
  let inner = { name: "N", field: [field("v", 1, INT32)] };
  for (let d = depth - 1; d >= 0; d--) {
    const childName = `.s${".N".repeat(d + 2)}`;
    inner = { name: "N", field: [field("next", 1, MESSAGE, childName)], nestedType: [inner] };
  }
  return setOf([file("s/nested.proto", "s", [inner])]);
}

/** The children of T<i> in a tree of n types: [field name, number, child index]. */
function treeChildren(i, n) {
  return [
    ["l", 2, 2 * i + 1],
    ["r", 3, 2 * i + 2],
  ].filter(([, , c]) => c < n);
}

/**
 * n top-level types `s.T<i>` in a binary tree: T<i> has `int32 v = 1` and references T<2i+1>
 * and T<2i+2> (fields `l = 2`, `r = 3`) where they exist; the root is `s.T0`. Half of the types
 * are leaves, ready at once when files are ordered.
 */
export function tree(n) {
  const types = [];
  for (let i = 0; i < n; i++) {
    const fields = [field("v", 1, INT32)];
    for (const [name, number, c] of treeChildren(i, n)) fields.push(field(name, number, MESSAGE, `.s.T${c}`));
    types.push({ name: `T${i}`, field: fields });
  }
  return setOf([file("s/tree.proto", "s", types)]);
}

/**
 * `tree(n)` as protobufjs JSON, for `protobuf.Root.fromJSON(json).lookupType("s.T0")`. (A root
 * with n fields is no protobufjs input at this size: Type.add rebuilds its id index per added
 * field, n x n to build.)
 */
export function treeJson(n) {
  const nested = {};
  for (let i = 0; i < n; i++) {
    const fields = { v: { type: "int32", id: 1 } };
    for (const [name, number, c] of treeChildren(i, n)) fields[name] = { type: `T${c}`, id: number };
    nested[`T${i}`] = { fields };
  }
  return { options: { syntax: "proto3" }, nested: { s: { nested } } };
}
