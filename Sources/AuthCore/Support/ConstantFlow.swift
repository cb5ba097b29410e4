internal import CAuthCoreLibCrypto

/// Marks where secret data becomes public, for the constant-flow gate (`make ctgrind`).
///
/// In the `make ctgrind` build (`-DAUTHCORE_CONSTANT_FLOW_CHECK`) run under Valgrind memcheck,
/// secrets are marked undefined where they enter and every branch, memory index or system call that
/// depends on them is reported. A secret-derived value may be used that way only after it is
/// *declassified* here, which each call site justifies: the value is published by the protocol
/// (`A`, `B`, `M1`, a signature), or the protocol itself reveals it (the length of `S` when RFC 2945
/// and Cognito hash its minimal bytes), or it is a verdict (a proof or MAC comparison's result).
/// Every other build compiles these calls to nothing.
package enum ConstantFlow {
    /// Marks `buffer` as secret (test harnesses: where a secret enters).
    package static func classify(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        c_authcore_classify(base, buffer.count)
    }

    /// Marks `buffer` as public from here on.
    package static func declassify(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        c_authcore_declassify(base, buffer.count)
    }

    /// A secret-derived value the caller is about to branch on, declassified.
    @inline(never)
    package static func declassified<T: BitwiseCopyable>(_ value: T) -> T {
        var copy = value
        withUnsafeBytes(of: &copy) { declassify($0) }
        return copy
    }

    /// Runs `body` with callgrind's instruction counting switched on (`make ct-count`, which starts
    /// callgrind with `--collect-atstart=no`): the count then covers `body` alone.
    package static func counting(_ body: () -> Void) {
        c_authcore_callgrind_toggle()
        body()
        c_authcore_callgrind_toggle()
    }

    /// Whether this process runs under the constant-flow checker.
    package static var isChecking: Bool { c_authcore_constant_flow_checking() != 0 }
    /// Errors memcheck has reported so far (0 outside the checker).
    package static var reportedErrors: Int { Int(c_authcore_constant_flow_errors()) }
}
