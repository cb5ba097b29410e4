internal import CAuthCoreBigNum
internal import CAuthCoreGMP

/// A precomputed comb for exponentiating one fixed base g modulo N in constant time.
///
/// The table holds, for every window i of `window` bits, the 2^window powers g^(d·2^(window·i)) in
/// Montgomery form. Then g^e = Π_i table[i][digit_i(e)]: one Montgomery multiplication per window and
/// no squarings. Each lookup reads every entry of the window (GMP's `mpn_sec_tabselect`, or the
/// radix-2^52 kernels' masked gather), so neither the memory access pattern nor the amount of work
/// depends on e; only the declared exponent bit length (a public, per-operation constant) sets the
/// number of windows. With ``SecretPowerKernel/ifma52`` (the preferred kernel where the processor
/// has IFMA) the entries are held in that kernel's digit form and the comb runs on it.
///
/// Size: windows × 2^window × bytes(N) (the digit form: × 64/48 at 3072 bits). With a 5-bit window
/// and a 512-bit reach, 103 windows × 32 entries: 1.27 MiB (1.69 MiB) for the 3072-bit group, built
/// in tens of milliseconds the first time it is needed.
package final class FixedBaseTable: @unchecked Sendable {
    // invariant: `entries` is written only in init and read-only afterwards (shared between threads).
    let domain: MontgomeryDomain
    let window: Int
    let windows: Int
    /// The largest exponent bit length the table covers.
    let maximumExponentBitCount: Int
    /// The kernel the comb runs on: GMP's (`mpn_sec_tabselect`, `mpn_sec_mul` and AuthCore's REDC over
    /// n-limb entries in GMP's Montgomery form) or the radix-2^52 kernels' (`c_authcore_comb52_*`
    /// over entries in their digit form, 64-byte aligned).
    let kernel: SecretPowerKernel
    let entries: LimbBuffer
    /// The first entry: `entries.pointer`, or for the digit form its first 64-byte boundary.
    let firstEntry: UnsafeMutablePointer<mp_limb_t>
    /// Words per entry: n, or the digit form's width.
    let entryWords: Int

    package init(
        base: BigUInt,
        domain: MontgomeryDomain,
        window: Int = 5,
        maximumExponentBitCount: Int,
        kernel: SecretPowerKernel = .preferred
    ) {
        precondition(
            (1...7).contains(window) && kernel.isAvailable,
            "a window of 1 to 7 bits and a kernel this processor runs"
        )  // invariant: callers pass 1...6 and .preferred (tests: available kernels)
        self.domain = domain
        self.window = window
        self.maximumExponentBitCount = maximumExponentBitCount
        // The 64-bit-limb kernel has no comb of its own: its tables would hold GMP's n-limb
        // Montgomery form, which GMP's comb already runs on.
        let effective = domain.secretPowers.effective(kernel)
        let kernel: SecretPowerKernel = effective == .mont64 ? .gmp : effective
        self.kernel = kernel
        windows = (maximumExponentBitCount + window - 1) / window
        let n = domain.limbCount
        let perWindow = 1 << window
        let digitForm = kernel != .gmp
        entryWords = digitForm ? Int(c_authcore_powm52_width(n)) : n
        entries = LimbBuffer(count: windows * perWindow * entryWords + (digitForm ? 8 : 0))
        let misalignment = Int(bitPattern: UInt(bitPattern: entries.pointer) % 64) / MemoryLayout<mp_limb_t>.stride
        firstEntry = digitForm && misalignment != 0 ? entries.pointer + (8 - misalignment) : entries.pointer
        // g_i = g^(2^(window·i)) in Montgomery form; entry d of window i is g_i^d.
        let windowBase = LimbBuffer(base, count: n)
        domain.enter(windowBase.pointer, windowBase.pointer)
        let block = LimbBuffer(count: perWindow * n)
        let plain = LimbBuffer(count: n)
        let scratch = LimbBuffer(count: Int(c_authcore_comb52_scratch_limbs(n)))
        for i in 0..<windows {
            block.pointer.update(from: domain.one.pointer, count: n)
            for d in 1..<perWindow {
                domain.multiply(block.pointer + d * n, block.pointer + (d - 1) * n, windowBase.pointer)
            }
            for _ in 0..<window { domain.square(windowBase.pointer, windowBase.pointer) }
            for d in 0..<perWindow {
                let entry = firstEntry + (i * perWindow + d) * entryWords
                guard digitForm, let square = domain.secretPowers.digitSquare else {
                    entry.update(from: block.pointer + d * n, count: n)
                    continue
                }
                domain.leave(plain.pointer, block.pointer + d * n)
                let enter = kernel == .ifma52 ? c_authcore_powm52_enter_ifma : c_authcore_powm52_enter_portable
                enter(entry, plain.pointer, domain.modulusLimbs.pointer, square.pointer, n, scratch.pointer)
            }
        }
    }

    /// base^e mod N as a plain number (the differential fuzz target's entry point; the engine stays
    /// in Montgomery form). `exponent` must be below 2^exponentBitCount.
    package func power(_ exponent: BigUInt, exponentBitCount: Int) -> BigUInt {
        let limbs = LimbBuffer(exponent, count: Swift.max(1, (exponentBitCount + 63) / 64))
        let result = LimbBuffer(count: domain.limbCount)
        power(into: result.pointer, exponent: limbs, exponentBitCount: exponentBitCount)
        domain.leave(result.pointer, result.pointer)
        return result.bigUInt
    }

    /// The comb alone on an exponent already in fixed-width limbs, the result left in its limbs
    /// (what the constant-flow gates run).
    package func preparedPower(_ exponent: BigUInt, exponentBitCount: Int) -> () -> Void {
        let limbs = LimbBuffer(exponent, count: Swift.max(1, (exponentBitCount + 63) / 64))
        let result = LimbBuffer(count: domain.limbCount)
        return { self.power(into: result.pointer, exponent: limbs, exponentBitCount: exponentBitCount) }
    }

    /// g^e mod N, in Montgomery form, into `result` (n limbs), for an exponent of `exponent.count`
    /// limbs whose declared bit length is `exponentBitCount` (≤ ``maximumExponentBitCount``).
    func power(into result: UnsafeMutablePointer<mp_limb_t>, exponent: LimbBuffer, exponentBitCount: Int) {
        precondition(
            exponentBitCount >= 1 && exponentBitCount <= maximumExponentBitCount,
            "exponent length outside the table"
        )  // invariant: callers check
        let used = (exponentBitCount + window - 1) / window
        let n = domain.limbCount
        if kernel != .gmp {
            let capacity = Int(c_authcore_comb52_scratch_limbs(n))
            withUnsafeTemporaryAllocation(of: mp_limb_t.self, capacity: capacity) { scratch in
                let comb = kernel == .ifma52 ? c_authcore_comb52_ifma : c_authcore_comb52_portable
                comb(
                    result,
                    firstEntry,
                    used,
                    UInt32(window),
                    exponent.pointer,
                    exponentBitCount,
                    domain.modulusLimbs.pointer,
                    domain.one.pointer,
                    n,
                    scratch.baseAddress!
                )  // invariant: capacity > 0
                secureZero(UnsafeMutableRawBufferPointer(scratch))
            }
            return
        }
        withUnsafeTemporaryAllocation(of: mp_limb_t.self, capacity: n + domain.scratchLimbs) { scratch in
            c_authcore_comb_power(
                result,
                entries.pointer,
                used,
                UInt32(window),
                exponent.pointer,
                exponent.count,
                domain.modulusLimbs.pointer,
                n,
                domain.minusInverse,
                scratch.baseAddress!
            )  // invariant: capacity > 0
            secureZero(UnsafeMutableRawBufferPointer(scratch))
        }
    }
}
