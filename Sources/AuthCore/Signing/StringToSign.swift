/// The string to sign, built on the stack: the one builder for SigV4 headers and URLs, OSS V4,
/// aws-chunked chunks (scoped) and Alibaba Cloud ACS3 (unscoped).
///
/// ```
/// ALGORITHM \n YYYYMMDDTHHMMSSZ \n YYYYMMDD/region/service/terminator \n TRAILER     (scoped)
/// ALGORITHM \n hex(SHA256(canonical request))                                      (unscoped, ACS3)
/// ```
///
/// The trailer is `hex(SHA256(canonical request))` for a request (AWS General Reference, "Create a
/// string to sign for Signature Version 4"; OSS "Signature Version 4", step 2), and
/// `previous-signature \n hex(SHA256("")) \n hex(SHA256(chunk))` for a chunk (S3 API Reference,
/// "Transferring Payload in Multiple Chunks").
enum StringToSign {
    /// The string to sign with the lower-case hex of `hash` as its trailer, passed to `body`.
    @inline(__always)
    static func with<R>(
        algorithm: StaticString,
        date: AmzDate,
        scopeSuffix: [UInt8],
        hash: Digest,
        _ body: (UnsafeRawBufferPointer) -> R
    ) -> R {
        with(
            algorithm: algorithm,
            date: date,
            scopeSuffix: scopeSuffix,
            trailerCount: 64,
            trailer: { out in
                hash.withUnsafeBytes { out.writeHex($0) }
            },
            body
        )
    }

    /// The string to sign with a trailer of exactly `trailerCount` bytes written by `trailer`.
    ///
    /// The buffer holds the algorithm, the 16-byte date and its newline, the 8-byte date stamp, the
    /// scope suffix and its newline, and the trailer: the cursor checks every write against it.
    @inline(__always)
    static func with<R>(
        algorithm: StaticString,
        date: AmzDate,
        scopeSuffix: [UInt8],
        trailerCount: Int,
        trailer: (inout OutputCursor) -> Void,
        _ body: (UnsafeRawBufferPointer) -> R
    ) -> R {
        let newline: StaticString = "\n"
        let count = algorithm.utf8CodeUnitCount + 1 + 16 + 1 + 8 + scopeSuffix.count + 1 + trailerCount
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            var out = OutputCursor(buffer: buffer)
            out.write(algorithm)
            out.write(newline)
            date.withBytes { out.write($0) }
            out.write(newline)
            date.withDateBytes { out.write($0) }
            out.write(scopeSuffix)
            out.write(newline)
            trailer(&out)
            return body(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[0..<out.position])))
        }
    }

    /// The unscoped string to sign `ALGORITHM \n hex(hash)` (Alibaba Cloud ACS3, "Request syntax and
    /// signature method V3", step 2: its key is the secret itself, with no date or scope).
    @inline(__always)
    static func withUnscoped<R>(algorithm: StaticString, hash: Digest, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: algorithm.utf8CodeUnitCount + 1 + 64) { buffer in
            var out = OutputCursor(buffer: buffer)
            out.write(algorithm)
            out.writeByte(UInt8(ascii: "\n"))
            hash.withUnsafeBytes { out.writeHex($0) }
            return body(UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[0..<out.position])))
        }
    }
}
