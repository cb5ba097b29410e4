internal import CAuthCoreBigNum
internal import CAuthCoreGMP

/// A precomputed comb for exponentiating one fixed base g modulo N in constant time.
///
/// The table holds, for every window i of `window` bits, the 2^window powers g^(d·2^(window·i)) in
/// Montgomery form. Then g^e = Π_i table[i][digit_i(e)]: one Montgomery multiplication per window and
/// no squarings. Each lookup is GMP's `mpn_sec_tabselect`, which reads every entry of the window, so
/// neither the memory access pattern nor the amount of work depends on e; only the declared exponent
/// bit length (a public, per-operation constant) sets the number of windows.
///
/// Size: windows × 2^window × bytes(N). With a 5-bit window and a 512-bit reach, 103 windows × 32
/// entries: 1.27 MiB for the 3072-bit group, built in ~15 ms the first time it is needed.
package final class FixedBaseTable: @unchecked Sendable {
    // invariant: `entries` is written only in init and read-only afterwards (shared between threads).
    let domain: MontgomeryDomain
    let window: Int
    let windows: Int
    /// The largest exponent bit length the table covers.
    let maximumExponentBitCount: Int
    let entries: LimbBuffer

    package init(base: BigUInt, domain: MontgomeryDomain, window: Int = 5, maximumExponentBitCount: Int) {
        self.domain = domain
        self.window = window
        self.maximumExponentBitCount = maximumExponentBitCount
        windows = (maximumExponentBitCount + window - 1) / window
        let n = domain.limbCount
        let perWindow = 1 << window
        entries = LimbBuffer(count: windows * perWindow * n)
        // g_i = g^(2^(window·i)) in Montgomery form; entry d of window i is g_i^d.
        let windowBase = LimbBuffer(base, count: n)
        domain.enter(windowBase.pointer, windowBase.pointer)
        for i in 0..<windows {
            let block = entries.pointer + i * perWindow * n
            block.update(from: domain.one.pointer, count: n)
            for d in 1..<perWindow {
                domain.multiply(block + d * n, block + (d - 1) * n, windowBase.pointer)
            }
            for _ in 0..<window { domain.square(windowBase.pointer, windowBase.pointer) }
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

    /// g^e mod N, in Montgomery form, into `result` (n limbs), for an exponent of `exponent.count`
    /// limbs whose declared bit length is `exponentBitCount` (≤ ``maximumExponentBitCount``).
    func power(into result: UnsafeMutablePointer<mp_limb_t>, exponent: LimbBuffer, exponentBitCount: Int) {
        precondition(exponentBitCount >= 1 && exponentBitCount <= maximumExponentBitCount, "exponent length outside the table")  // invariant: callers check
        let used = (exponentBitCount + window - 1) / window
        let n = domain.limbCount
        withUnsafeTemporaryAllocation(of: mp_limb_t.self, capacity: n + domain.scratchLimbs) { scratch in
            c_authcore_comb_power(
                result, entries.pointer, used, UInt32(window), exponent.pointer, exponent.count, domain.modulusLimbs.pointer, n,
                domain.minusInverse, scratch.baseAddress!)  // invariant: capacity > 0
            secureZero(UnsafeMutableRawBufferPointer(scratch))
        }
    }
}
