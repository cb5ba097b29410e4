public import AuthCore

/// A deterministic random generator for tests (SplitMix64; never for real secrets).
public struct SeededRandom: SecureRandomGenerator, RandomNumberGenerator, @unchecked Sendable {
    final class State: @unchecked Sendable {
        var value: UInt64
        init(_ v: UInt64) { value = v }
    }
    let state: State
    public init(seed: UInt64) { state = State(seed) }

    public func next() -> UInt64 {
        state.value &+= 0x9E37_79B9_7F4A_7C15
        var z = state.value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError) {
        for i in 0..<buffer.count { buffer[i] = UInt8(truncatingIfNeeded: next()) }
    }

    public func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

/// A generator that always fails, to test error paths.
public struct FailingRandom: SecureRandomGenerator {
    public init() {}
    public func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError) {
        throw AuthCoreError(.randomFailure, "test generator refuses")
    }
}
