/// Signs an `aws-chunked` upload (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`) chunk by chunk, in
/// constant memory whatever the payload size.
///
/// Amazon S3 API Reference, "Signature Calculations for the Authorization Header: Transferring
/// Payload in Multiple Chunks": the request is signed with its headers only (the *seed*
/// signature); then each chunk's signature chains the previous one:
///
/// ```
/// string to sign = "AWS4-HMAC-SHA256-PAYLOAD" \n X-Amz-Date \n scope \n previous-signature \n
///                  hex(SHA256("")) \n hex(SHA256(chunk-data))
/// chunk          = hex(size) ";chunk-signature=" signature \r\n chunk-data \r\n
/// ```
///
/// and the body ends with a zero-length chunk. The request carries `Content-Encoding: aws-chunked`,
/// `x-amz-decoded-content-length` and a `Content-Length` of the encoded body
/// (``encodedLength(decodedLength:chunkSize:)``).
public struct SigV4ChunkSigner: Sendable {
    private let entry: SigningKeyCache.Entry
    private let date: AmzDate
    private let scopeSuffix: [UInt8]
    /// The signature of the last chunk signed (the seed signature before the first chunk).
    public private(set) var previousSignature: String

    /// Starts the chain from a request signed with ``SigV4Payload/streaming`` by `signer`: the
    /// chunks are signed at the seed's `X-Amz-Date`, under that day's signing key.
    public init(signer: SigV4Signer, seed: SigV4Signature) {
        entry = signer.keyEntry(day: seed.date)
        date = seed.date
        scopeSuffix = seed.scopeSuffix
        previousSignature = seed.signature
    }

    /// ``init(signer:seed:)``; `time` is not used. (It chose the signing key, which then disagreed
    /// with the seed's date for a `time` on another UTC day: every chunk signature was wrong.)
    @available(*, deprecated, renamed: "init(signer:seed:)", message: "the chunks are signed at the seed's date")
    public init(signer: SigV4Signer, seed: SigV4Signature, at time: Timestamp) {
        self.init(signer: signer, seed: seed)
    }

    /// Signs the next chunk (an empty buffer is the final chunk) and returns its signature.
    public mutating func sign(chunk: UnsafeRawBufferPointer) -> String {
        let dataHash =
            chunk.isEmpty ? PayloadHashText.emptyBody : PayloadHashText(hexOf: SHA256.hash(bufferPointer: chunk))
        let previous = previousSignature
        let newline: StaticString = "\n"
        // previous-signature \n hex(SHA256("")) \n hex(SHA256(chunk)): three 64-digit lines.
        let mac = StringToSign.with(
            algorithm: "AWS4-HMAC-SHA256-PAYLOAD",
            date: date,
            scopeSuffix: scopeSuffix,
            trailerCount: 64 * 3 + 2,
            trailer: { out in
                out.write(previous)
                out.write(newline)
                PayloadHashText.emptyBody.withUnsafeBytes { out.write($0) }
                out.write(newline)
                dataHash.withUnsafeBytes { out.write($0) }
            }
        ) { entry.authenticationCode(for: $0) }
        previousSignature = mac.publishedHexLowercased
        return previousSignature
    }

    /// Signs the next chunk and returns its encoded header `hex(size);chunk-signature=…\r\n`; the
    /// caller writes the data and a trailing `\r\n` after it.
    public mutating func header(forChunk chunk: UnsafeRawBufferPointer) -> [UInt8] {
        let signature = sign(chunk: chunk)
        var header = Array(String(chunk.count, radix: 16).utf8)
        header.append(contentsOf: ";chunk-signature=".utf8)
        header.append(contentsOf: signature.utf8)
        header.append(contentsOf: "\r\n".utf8)
        return header
    }

    /// The whole encoded form of one chunk: header, data, `\r\n`.
    public mutating func encode(chunk: UnsafeRawBufferPointer) -> [UInt8] {
        var out = header(forChunk: chunk)
        out.append(contentsOf: chunk)
        out.append(contentsOf: "\r\n".utf8)
        return out
    }

    /// The `Content-Length` of an aws-chunked body of `decodedLength` bytes cut into `chunkSize`
    /// chunks (plus the final empty chunk).
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` for a chunk size below 1 or a negative
    ///   length, ``AuthCoreError/Code/inputTooLarge`` when the encoded length does not fit an `Int`.
    public static func encodedLength(decodedLength: Int, chunkSize: Int) throws(AuthCoreError) -> Int {
        guard chunkSize > 0 else {
            throw AuthCoreError(.invalidParameter, "aws-chunked chunk size must be positive, got \(chunkSize)")
        }
        guard decodedLength >= 0 else {
            throw AuthCoreError(.invalidParameter, "aws-chunked decoded length must not be negative")
        }
        // Per chunk: hex(size) ";chunk-signature=" 64 hex digits "\r\n" data "\r\n" (at most 16 + 17 + 64 + 4
        // bytes of framing, so only `size` itself and the product can overflow).
        func chunkLength(_ size: Int) -> (Int, Bool) {
            size.addingReportingOverflow(String(size, radix: 16).utf8.count + ";chunk-signature=".utf8.count + 64 + 4)
        }
        let full = decodedLength / chunkSize
        let rest = decodedLength % chunkSize
        let (fullLength, o1) = chunkLength(chunkSize)
        let (fullTotal, o2) = full.multipliedReportingOverflow(by: fullLength)
        let (restLength, o3) = rest > 0 ? chunkLength(rest) : (0, false)
        let (sum, o4) = fullTotal.addingReportingOverflow(restLength)
        let (total, o5) = sum.addingReportingOverflow(chunkLength(0).0)
        guard !(o1 || o2 || o3 || o4 || o5) else {
            throw AuthCoreError(.inputTooLarge, "aws-chunked body of \(decodedLength) bytes is too large to encode")
        }
        return total
    }
}
