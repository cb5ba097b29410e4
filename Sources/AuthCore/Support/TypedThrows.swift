// Standard-library closures such as `Array.withUnsafeBytes` are `rethrows`, which erases a typed
// error to `any Error`. These wrappers keep `throws(E)` intact through them.

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` that preserves the closure's typed error.
    @inlinable
    package func withUnsafeBytesTyped<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = withUnsafeBytes { buffer in Result { () throws(E) -> R in try body(buffer) } }
        return try result.get()
    }

    /// `withUnsafeMutableBytes` that preserves the closure's typed error.
    @inlinable
    package mutating func withUnsafeMutableBytesTyped<R, E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        let result: Result<R, E> = withUnsafeMutableBytes { buffer in Result { () throws(E) -> R in try body(buffer) } }
        return try result.get()
    }
}
