import type { ConfigurationField } from '../../../generated/types/service.ts';

// Static ABI values of module configuration (spec/schemas/module-descriptor.v0.1.schema.json AbiType, AbiValue,
// ConfigurationField): integers as signed decimal strings, address and bytesN as 0x hex, bool as a JSON boolean.
// The schema checks the JSON shape only; these say whether a value fits its declared type and a field's bounds.

const integer = /^(u?)int(\d+)$/;
const fixedBytes = /^bytes(\d+)$/;
const decimal = /^(?:0|-?[1-9][0-9]*)$/;

/** The inclusive range of an integer type, or null for another type. */
function rangeOf(type: string): { min: bigint; max: bigint } | null {
  const m = integer.exec(type);
  if (!m) return null;
  const bits = BigInt(m[2] as string);
  return m[1] === 'u' ? { min: 0n, max: 2n ** bits - 1n } : { min: -(2n ** (bits - 1n)), max: 2n ** (bits - 1n) - 1n };
}

/** Why `value` is not a value of the static ABI `type`, or null when it is. */
export function abiTypeProblem(type: string, value: unknown): string | null {
  const range = rangeOf(type);
  if (range) {
    if (typeof value !== 'string' || !decimal.test(value)) return `${JSON.stringify(value)} is not a decimal ${type}`;
    const n = BigInt(value);
    return n < range.min || n > range.max ? `${value} is outside ${type} (${range.min} to ${range.max})` : null;
  }
  if (type === 'bool') return typeof value === 'boolean' ? null : `${JSON.stringify(value)} is not a bool`;
  if (type === 'address') {
    return typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)
      ? null
      : `${JSON.stringify(value)} is not an address (0x and 40 hex digits)`;
  }
  const bytes = fixedBytes.exec(type);
  if (bytes) {
    const digits = Number(bytes[1]) * 2;
    return typeof value === 'string' && new RegExp(`^0x[0-9a-fA-F]{${digits}}$`).test(value)
      ? null
      : `${JSON.stringify(value)} is not a ${type} (0x and ${digits} hex digits)`;
  }
  return `${type} is not a static ABI type`;
}

/**
 * Why a configuration field is inconsistent, or null: bounds only on an integer type, each within the type and
 * minimum <= maximum; a fixed value or an input default fits the type and the bounds.
 */
export function abiFieldProblem(field: ConfigurationField): string | null {
  const range = rangeOf(field.type);
  for (const bound of ['minimum', 'maximum'] as const) {
    const value = field[bound];
    if (value === undefined) continue;
    if (!range) return `${bound} is set on the non-integer type ${field.type}`;
    const problem = abiTypeProblem(field.type, value);
    if (problem) return `${bound} ${problem}`;
  }
  if (field.minimum !== undefined && field.maximum !== undefined && BigInt(field.minimum) > BigInt(field.maximum)) {
    return `minimum ${field.minimum} is above maximum ${field.maximum}`;
  }
  const [which, value] =
    field.binding.mode === 'fixed' ? ['fixed value', field.binding.value] : ['default', field.binding.default];
  if (value === undefined) return null;
  const problem = abiTypeProblem(field.type, value);
  if (problem) return `${which} ${problem}`;
  if (range) {
    const n = BigInt(value as string);
    if (field.minimum !== undefined && n < BigInt(field.minimum))
      return `${which} ${n} is below minimum ${field.minimum}`;
    if (field.maximum !== undefined && n > BigInt(field.maximum))
      return `${which} ${n} is above maximum ${field.maximum}`;
  }
  return null;
}
