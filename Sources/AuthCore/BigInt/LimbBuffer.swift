internal import CAuthCoreBigNum
internal import CAuthCoreGMP

/// A fixed-width little-endian array of 64-bit limbs in wiping heap storage: the one limb container
/// of the engine (secret scalars, Montgomery-form values, ``FixedBaseTable``'s comb,
/// ``ModularContext``'s operands).
///
/// Secret scalars (`a`, `b`, `x`, `a + u·x`) and Montgomery-form values live in these so that every
/// constant-time kernel sees operands of a fixed, public width: a value's own length (its leading
/// zero limbs) never changes how much work is done.
final class LimbBuffer: @unchecked Sendable {
    // invariant: mutated only by the code that created it, before it is shared.
    let pointer: UnsafeMutablePointer<mp_limb_t>
    let count: Int

    init(count: Int) {
        self.count = Swift.max(count, 1)
        pointer = .allocate(capacity: self.count)
        pointer.initialize(repeating: 0, count: self.count)
    }

    /// A buffer holding `value` (which must fit), zero-extended to `count` limbs.
    convenience init(_ value: BigUInt, count: Int) {
        self.init(count: count)
        let used = value.limbCount
        // invariant: callers size buffers from N or declared bits
        precondition(used <= self.count, "value wider than its limb buffer")
        if used > 0, let source = c_authcore_mpz_limbs_read(value.storage.pointer) {
            pointer.update(from: source, count: used)
        }
    }

    /// A buffer holding big-endian `bytes` (which must fit) zero-extended to `count` limbs, read in
    /// time that depends only on the byte count.
    convenience init(bigEndianBytes bytes: UnsafeRawBufferPointer, count: Int) {
        self.init(count: count)
        // invariant: sized by callers
        precondition(bytes.count <= self.count * 8, "bytes wider than their limb buffer")
        for (index, byte) in bytes.reversed().enumerated() {
            pointer[index / 8] |= mp_limb_t(byte) << (8 * (index % 8))
        }
    }

    deinit {
        secureZero(UnsafeMutableRawPointer(pointer), count: count * MemoryLayout<mp_limb_t>.stride)
        pointer.deallocate()
    }

    var buffer: UnsafeMutableBufferPointer<mp_limb_t> { UnsafeMutableBufferPointer(start: pointer, count: count) }

    /// The value as a `BigUInt` (variable time in the value's leading zero limbs: public values).
    var bigUInt: BigUInt { BigUInt(limbs: UnsafeBufferPointer(buffer)) }

    /// The value as a `BigUInt` once the protocol publishes it (`A`, `B`): declassified first.
    var publishedBigUInt: BigUInt {
        ConstantFlow.declassify(UnsafeRawBufferPointer(UnsafeBufferPointer(buffer)))
        return bigUInt
    }

    /// A secret value as a `BigUInt` (the verifier `v`): the limbs stay secret, only the number of
    /// significant 64-bit words is declassified, since `BigUInt` stores it. For a value below N it
    /// differs from N's own word count with probability about 2⁻⁶⁴ per word.
    var secretBigUInt: BigUInt {
        let significant = ConstantFlow.declassified(Int(c_authcore_mpn_sec_significant_limbs(pointer, count)))
        return BigUInt(limbs: UnsafeBufferPointer(buffer), significantCount: significant)
    }

    /// All limbs as big-endian bytes in wiping storage, after `leadingZeros` zero bytes.
    func secureBigEndianBytes(leadingZeros: Int = 0) -> SecureBytes {
        SecureBytes(count: leadingZeros + count * 8) { out in
            writeBigEndianBytes(into: UnsafeMutableRawBufferPointer(rebasing: out[leadingZeros...]))
        }
    }

    /// The low `byteCount` bytes big-endian in wiping storage (N's byte length for a value below N,
    /// whose higher bytes are zero): every byte is written, in time that depends only on the counts.
    func secureBigEndianBytes(byteCount: Int) -> SecureBytes {
        precondition(byteCount <= count * 8, "the bytes lie within the limbs")  // invariant: sized by callers from N
        return SecureBytes(count: byteCount) { out in
            for index in 0..<byteCount {
                out[byteCount - 1 - index] = UInt8(truncatingIfNeeded: pointer[index / 8] >> (8 * UInt64(index % 8)))
            }
        }
    }

    /// Writes all limbs big-endian into exactly `count * 8` bytes: time depends only on `count`.
    func writeBigEndianBytes(into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count == count * 8, "byte buffer must hold every limb")  // invariant: sized by callers
        for index in 0..<count {
            out.storeBytes(of: UInt64(pointer[index]).bigEndian, toByteOffset: (count - 1 - index) * 8, as: UInt64.self)
        }
    }

    /// a + u·x at the fixed width `count` (SRP's client exponent, RFC 5054 §2.6), in time that
    /// depends only on the operands' widths: `mpn_sec_mul` then `mpn_add_n`. `count` must hold the
    /// sum (at least `max(a.count, u.count + x.count)` limbs).
    static func sum(_ a: LimbBuffer, plusProductOf u: LimbBuffer, _ x: LimbBuffer, count: Int) -> LimbBuffer {
        // invariant: sized by the caller
        precondition(count >= Swift.max(a.count, u.count + x.count), "the sum's width holds both terms")
        let result = LimbBuffer(count: count)
        let (wide, narrow) = u.count >= x.count ? (u, x) : (x, u)  // mpn_sec_mul wants the longer operand first
        withUnsafeTemporaryAllocation(
            of: mp_limb_t.self,
            capacity: count + Int(c_authcore_mpn_sec_mul_itch(wide.count, narrow.count))
        ) {
            scratch in
            let product = scratch.baseAddress!  // invariant: capacity > 0
            product.initialize(repeating: 0, count: count)
            c_authcore_mpn_sec_mul(product, wide.pointer, wide.count, narrow.pointer, narrow.count, product + count)
            result.pointer.update(from: a.pointer, count: a.count)
            _ = c_authcore_mpn_add_n(result.pointer, result.pointer, product, count)
            secureZero(UnsafeMutableRawBufferPointer(scratch))
        }
        return result
    }
}
