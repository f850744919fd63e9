// Name helpers shared by the rules, the protobufjs lowering and normalization. They follow protoc
// (descriptor.cc ToJsonName and MapEntryName) so that every input path yields the same names.

/** The JSON name protoc gives a field that declares no `json_name`: drop `_`, upper-case the next char. */
export function protocJsonName(fieldName: string): string {
  let out = "";
  let upperNext = false;
  for (const ch of fieldName) {
    if (ch === "_") {
      upperNext = true;
    } else if (upperNext) {
      out += ch.toUpperCase();
      upperNext = false;
    } else {
      out += ch;
    }
  }
  return out;
}

/** The nested entry type protoc generates for map field `fieldName` (`labels` → `LabelsEntry`). */
export function mapEntryName(fieldName: string): string {
  let out = "";
  let upperNext = true;
  for (const ch of fieldName) {
    if (ch === "_") {
      upperNext = true;
    } else if (upperNext) {
      out += ch >= "a" && ch <= "z" ? ch.toUpperCase() : ch;
      upperNext = false;
    } else {
      out += ch;
    }
  }
  return out + "Entry";
}

const encoder = new TextEncoder();

/** UTF-8 length without allocating for the common ASCII case. */
export function utf8Length(s: string): number {
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  return ascii ? s.length : encoder.encode(s).length;
}

/** A short form of a possibly huge name for error messages (a 70 KB name must not flood logs). */
export function shortName(name: string): string {
  return name.length <= 200 ? name : `${name.slice(0, 120)}…(${name.length} chars)`;
}
