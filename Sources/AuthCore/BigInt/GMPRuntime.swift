internal import CAuthCoreGMP
internal import CAuthCoreLibCrypto
import Synchronization

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Process-wide GMP set-up: a zeroizing allocator, installed once before any GMP value exists.
///
/// GMP reallocates and frees limb buffers internally (temporaries of `mpz_mul`, `mpz_powm`, the
/// old buffer of a growing `mpz_t`). With the default allocator those buffers return to `malloc`
/// still holding intermediate values derived from secrets. AuthCore installs allocation functions
/// that overwrite every buffer with `OPENSSL_cleanse` before it is freed, and every buffer given up
/// by `realloc` (GMP passes the old and new sizes, which is what makes wiping possible).
///
/// - Important: The hook is process-global (`mp_set_memory_functions`): another library in the same
///   process that installs its own functions after AuthCore replaces this one. GMP's `alloca`
///   temporaries (small scratch on the stack, gmplib.org manual §13 "Custom Allocation") are not
///   covered.
enum GMPRuntime {
    /// Installed on first use; Swift runs a global's initializer exactly once, thread-safely.
    private static let installed: Bool = {
        c_authcore_mp_set_memory_functions(zeroizingAllocate, zeroizingReallocate, zeroizingFree)
        return true
    }()

    /// Number of allocations GMP made through the hook (for allocation budgets in tests and benchmarks).
    static let allocations = Atomic<Int>(0)

    /// Ensures the allocator is installed; call before creating any `mpz_t`.
    @inline(__always)
    static func ensureInstalled() {
        _ = installed
    }
}

private func zeroizingAllocate(_ size: Int) -> UnsafeMutableRawPointer? {
    GMPRuntime.allocations.add(1, ordering: .relaxed)
    return malloc(size)
}

private func zeroizingReallocate(
    _ pointer: UnsafeMutableRawPointer?,
    _ oldSize: Int,
    _ newSize: Int
)
    -> UnsafeMutableRawPointer?
{
    GMPRuntime.allocations.add(1, ordering: .relaxed)
    guard let replacement = malloc(newSize) else { return nil }
    if let pointer {
        replacement.copyMemory(from: pointer, byteCount: Swift.min(oldSize, newSize))
        c_authcore_cleanse(pointer, oldSize)
        free(pointer)
    }
    return replacement
}

private func zeroizingFree(_ pointer: UnsafeMutableRawPointer?, _ size: Int) {
    guard let pointer else { return }
    c_authcore_cleanse(pointer, size)
    free(pointer)
}

/// GMP allocation counter, for allocation budgets (tests and `authcore-bench`).
package enum GMPAllocationCounter {
    /// Total allocations and reallocations GMP has made in this process.
    package static var total: Int {
        GMPRuntime.ensureInstalled()
        return GMPRuntime.allocations.load(ordering: .relaxed)
    }
}
