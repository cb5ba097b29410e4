import AuthCore
import Testing

/// A deterministic random generator for tests (SplitMix64; never for real secrets).
struct SeededRandom: SecureRandomGenerator, @unchecked Sendable {
    final class State: @unchecked Sendable { var value: UInt64; init(_ v: UInt64) { value = v } }
    let state: State
    init(seed: UInt64) { state = State(seed) }

    func next() -> UInt64 {
        state.value &+= 0x9E37_79B9_7F4A_7C15
        var z = state.value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError) {
        for i in 0..<buffer.count { buffer[i] = UInt8(truncatingIfNeeded: next()) }
    }

    func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

/// A generator that always fails, to test error paths.
struct FailingRandom: SecureRandomGenerator {
    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError) {
        throw AuthCoreError(.randomFailure, "test generator refuses")
    }
}

func hex(_ text: String) -> [UInt8] {
    (try? Hex.decode(text, allowEmpty: true)) ?? []
}

/// Runs `body` and returns the AuthCoreError code it throws (nil if it does not throw).
func errorCode<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) -> AuthCoreError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as AuthCoreError {
        return error.code
    } catch {
        Issue.record("expected an AuthCoreError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
