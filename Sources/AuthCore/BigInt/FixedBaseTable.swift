internal import CAuthCoreBigNum
internal import CAuthCoreGMP

/// A precomputed comb for exponentiating one fixed base g modulo N in constant time.
///
/// The table holds, for every window i of `window` bits, the 2^window powers g^(d·2^(window·i)) in
/// Montgomery form. Then g^e = Π_i table[i][digit_i(e)]: one Montgomery multiplication per window and
/// no squarings. Each lookup reads every entry of the window (GMP's `mpn_sec_tabselect`, or the
/// kernels' masked gathers), so neither the memory access pattern nor the amount of work
/// depends on e; only the declared exponent bit length (a public, per-operation constant) sets the
/// number of windows. With ``SecretPowerKernel/ifma52`` (the preferred kernel where the processor
/// has IFMA) the entries are held in that kernel's digit form and the comb runs on it; with
/// ``SecretPowerKernel/mont64`` they are GMP's n-limb Montgomery form, which is that kernel's own
/// (R = 2^(64·n)), and the comb runs on its multiplication (`c_authcore_comb64`).
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
    /// n-limb entries in GMP's Montgomery form), the 64-bit-limb kernel's (`c_authcore_comb64`, on
    /// the same entries) or the radix-2^52 kernels' (`c_authcore_comb52_*` over entries in their
    /// digit form, 64-byte aligned).
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
        let kernel = domain.secretPowers.effective(kernel)
        self.kernel = kernel
        windows = (maximumExponentBitCount + window - 1) / window
        let n = domain.limbCount
        let perWindow = 1 << window
        // GMP's kernel and the 64-bit-limb one share GMP's n-limb Montgomery form.
        let digitForm = kernel == .ifma52 || kernel == .portable52
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
        if kernel == .mont64 {
            combOnLimbs(into: result, exponent: exponent, exponentBitCount: exponentBitCount, windows: used)
            return
        }
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

    /// ``power(into:exponent:exponentBitCount:)`` on the 64-bit-limb kernel's comb over the n-limb
    /// entries (the result below 2^(64·n) and congruent, as GMP's comb leaves it). Not gated on the
    /// kernel's availability: `make ctgrind` and `make ct-count` call it under valgrind, which runs
    /// MULX, ADCX and ADOX but hides ADX from CPUID. On a processor without them it would stop the
    /// program with an illegal instruction, and off x86-64 the kernel is a stub that writes
    /// nothing: only ``power(into:exponent:exponentBitCount:)`` (for a table whose kernel is
    /// available) and the gates on x86-64 call it.
    private func combOnLimbs(
        into result: UnsafeMutablePointer<mp_limb_t>,
        exponent: LimbBuffer,
        exponentBitCount: Int,
        windows used: Int
    ) {
        let n = domain.limbCount
        withUnsafeTemporaryAllocation(of: mp_limb_t.self, capacity: Int(c_authcore_comb64_scratch_limbs(n))) {
            scratch in
            c_authcore_comb64(
                result,
                entries.pointer,
                used,
                UInt32(window),
                exponent.pointer,
                exponentBitCount,
                domain.modulusLimbs.pointer,
                n,
                scratch.baseAddress!
            )  // invariant: capacity > 0
            secureZero(UnsafeMutableRawBufferPointer(scratch))
        }
    }

    /// The 64-bit-limb kernel's comb on this table's n-limb entries (GMP's form: a table built for
    /// ``SecretPowerKernel/gmp`` or ``SecretPowerKernel/mont64``), the result left in its limbs, for
    /// the constant-flow gates, which run under valgrind where the kernel reports itself unavailable.
    package func preparedLimbCombPower(_ exponent: BigUInt, exponentBitCount: Int) -> () -> Void {
        let (limbs, result, used) = limbCombOperands(exponent, exponentBitCount: exponentBitCount)
        return {
            self.combOnLimbs(into: result.pointer, exponent: limbs, exponentBitCount: exponentBitCount, windows: used)
        }
    }

    /// ``preparedLimbCombPower(_:exponentBitCount:)`` run once, its result brought out of Montgomery
    /// form and returned as N's limb count of little-endian limbs, none of them normalised away (so
    /// a gate can declassify them and check the value).
    package func limbCombPower(_ exponent: BigUInt, exponentBitCount: Int) -> [UInt] {
        let (limbs, result, used) = limbCombOperands(exponent, exponentBitCount: exponentBitCount)
        combOnLimbs(into: result.pointer, exponent: limbs, exponentBitCount: exponentBitCount, windows: used)
        domain.leave(result.pointer, result.pointer)
        return (0..<domain.limbCount).map { UInt(result.pointer[$0]) }
    }

    private func limbCombOperands(
        _ exponent: BigUInt,
        exponentBitCount: Int
    ) -> (exponent: LimbBuffer, result: LimbBuffer, windows: Int) {
        precondition(
            kernel == .gmp || kernel == .mont64,
            "a table in GMP's Montgomery form"
        )  // invariant: the gates build it so
        precondition(
            exponentBitCount >= 1 && exponentBitCount <= maximumExponentBitCount,
            "exponent length outside the table"
        )  // invariant: the gates pass the table's reach
        return (
            LimbBuffer(exponent, count: Swift.max(1, (exponentBitCount + 63) / 64)),
            LimbBuffer(count: domain.limbCount),
            (exponentBitCount + window - 1) / window
        )
    }
}
