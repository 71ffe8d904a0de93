/**
 * The table of built-in functions: each built-in is declared once, with the properties the
 * evaluator needs to know about it, and every name set is computed from this table, so adding a
 * built-in here is enough for method dispatch, mutation analysis and work charging to see it.
 */

interface BuiltinTraits {
  /** Never changes its receiver or arguments, so mutation analysis may skip copying around it. */
  pure?: true;
  /** Does not scan its string receiver, so it is not charged work in proportion to the string. */
  cheap?: true;
  /** Takes no argument besides the receiver and is also readable as a property (`a.len`, `r.start`). */
  getter?: true;
  /** On an array it moves every element (splice, reverse) or copies a slice, so it is charged for that. */
  shifting?: true;
  /**
   * On a string Rhai runs it in place on the variable; here it also returns the new string, which
   * the evaluator writes back to the receiver.
   */
  mutatesString?: true;
}

/** An object literal, so declaring a built-in twice is a compile error. */
const BUILTINS = {
  to_json: { pure: true },
  parse_json: { pure: true },
  print: { pure: true, cheap: true },
  debug: { pure: true },
  type_of: { pure: true, cheap: true },
  to_string: { pure: true, cheap: true },
  to_debug: { pure: true },
  is_empty: { pure: true, cheap: true, getter: true },
  Fn: { pure: true },
  call: {},
  parse_int: { pure: true },
  parse_float: { pure: true },
  range: { pure: true },
  min: { pure: true },
  max: { pure: true },
  len: { pure: true, cheap: true, getter: true },
  contains: { pure: true },
  starts_with: { pure: true },
  ends_with: { pure: true },
  trim: { mutatesString: true },
  trim_start: { mutatesString: true },
  trim_end: { mutatesString: true },
  to_upper: { pure: true },
  to_lower: { pure: true },
  make_upper: { mutatesString: true },
  make_lower: { mutatesString: true },
  clear: { mutatesString: true },
  append: { shifting: true, mutatesString: true },
  replace: { mutatesString: true },
  remove: { shifting: true, mutatesString: true },
  index_of: { pure: true },
  sub_string: { pure: true },
  crop: { mutatesString: true },
  truncate: { mutatesString: true },
  pad: { mutatesString: true },
  chars: { pure: true },
  to_chars: { pure: true },
  split: { pure: true },
  get: { pure: true, cheap: true },
  push: {},
  pop: {},
  shift: { shifting: true },
  insert: { shifting: true },
  set: {},
  join: { pure: true, shifting: true },
  sort: {},
  reverse: { shifting: true },
  filter: { pure: true },
  map: { pure: true },
  reduce: { pure: true },
  some: { pure: true },
  all: { pure: true },
  find: { pure: true },
  extract: { pure: true, shifting: true },
  keys: { pure: true },
  values: { pure: true },
  mixin: {},
  fill_with: {},
  abs: { pure: true },
  sign: { pure: true },
  to_float: { pure: true },
  to_int: { pure: true },
  floor: { pure: true },
  ceiling: { pure: true },
  round: { pure: true },
  sqrt: { pure: true },
  is_even: { pure: true, getter: true },
  is_odd: { pure: true, getter: true },
  is_zero: { pure: true, getter: true },
  is_nan: { pure: true },
  to_char: { pure: true },
  is_digit: { pure: true },
  is_alphabetic: { pure: true },
  is_whitespace: { pure: true },
  start: { pure: true, getter: true },
  end: { pure: true, getter: true },
  is_inclusive: { pure: true, getter: true },
  is_exclusive: { getter: true },
  is_anonymous: { pure: true, getter: true },
  find_map: { pure: true },
  reduce_rev: { pure: true },
  retain: { shifting: true },
  drain: { shifting: true },
  dedup: {},
  chop: { shifting: true },
  splice: { shifting: true },
  PI: { pure: true },
  E: { pure: true },
} satisfies Record<string, BuiltinTraits>;

function namesWith(trait: keyof BuiltinTraits): ReadonlySet<string> {
  return new Set(
    Object.entries(BUILTINS as Record<string, BuiltinTraits>)
      .filter(([, t]) => t[trait])
      .map(([name]) => name),
  );
}

/** Every built-in name, so a method call can tell a built-in from a script function taking the receiver first. */
export const BUILTIN_NAMES: ReadonlySet<string> = new Set(Object.keys(BUILTINS));
export const PURE = namesWith('pure');
export const CHEAP = namesWith('cheap');
export const GETTERS = namesWith('getter');
export const SHIFTING = namesWith('shifting');
export const STRING_MUTATORS = namesWith('mutatesString');

/** What a per-type built-in table answers when no built-in of that name takes these arguments. */
export const NOT_FOUND = Symbol('not-found');
