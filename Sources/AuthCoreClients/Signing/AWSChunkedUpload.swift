public import AuthCore

/// A streamed upload signed chunk by chunk (`STREAMING-AWS4-HMAC-SHA256-PAYLOAD`): the request is
/// signed with its headers only (the seed), and each chunk of the body carries a signature chained
/// from it, made as the chunk is sent (`SigV4ChunkSigner`). Memory stays at one chunk whatever the
/// size.
///
/// Amazon S3 API Reference, "Signature Calculations for the Authorization Header: Transferring
/// Payload in Multiple Chunks (Chunked Upload)": the request carries `Content-Encoding: aws-chunked`,
/// `x-amz-decoded-content-length` (the payload's size), `x-amz-content-sha256:
/// STREAMING-AWS4-HMAC-SHA256-PAYLOAD` and the `Content-Length` of the encoded body; every chunk
/// but the last has the same size (at least 8 KiB for S3), and a zero-length chunk ends the body.
public enum AWSChunkedUpload {
    /// 64 KiB chunks.
    public static let defaultChunkSize = 64 << 10
    /// S3's smallest chunk (all but the last).
    public static let minimumChunkSize = 8 << 10
    /// The largest chunk accepted here (one chunk is held in memory).
    public static let maximumChunkSize = 16 << 20

    /// `request` signed at `time` for an aws-chunked upload of `payload` (whose length must be
    /// known), with the streamed body set: what ``SignedRequestSender/send(_:sign:)``'s closure
    /// returns for such an upload.
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a payload of unknown length, a chunk size
    ///   below 8 KiB, or a request that already has a body or a `Content-Encoding`; the signer's errors.
    public static func signed(
        _ request: HTTPRequest,
        payload: HTTPBodyStream,
        signer: SigV4Signer,
        at time: Timestamp,
        chunkSize: Int = defaultChunkSize
    ) throws(AuthCoreError) -> HTTPRequest {
        guard let decodedLength = payload.length else {
            throw AuthCoreError(
                .invalidParameter,
                "an aws-chunked upload needs a payload of known length (x-amz-decoded-content-length)"
            )
        }
        guard (minimumChunkSize...maximumChunkSize).contains(chunkSize) else {
            throw AuthCoreError(
                .invalidParameter,
                "aws-chunked chunks must be \(minimumChunkSize) to \(maximumChunkSize) bytes, got \(chunkSize)"
            )
        }
        guard request.body.isEmpty, !request.body.isStream else {
            throw AuthCoreError(
                .invalidParameter,
                "an aws-chunked upload's body is its payload: the request must have none of its own"
            )
        }
        guard request.headers.first(named: "content-encoding") == nil else {
            throw AuthCoreError(.invalidParameter, "an aws-chunked upload sets Content-Encoding itself")
        }
        let encodedLength = try SigV4ChunkSigner.encodedLength(decodedLength: decodedLength, chunkSize: chunkSize)
        var prepared = request
        prepared.headers.removeAll {
            $0.hasName("content-length") || $0.hasName("x-amz-decoded-content-length")
                || $0.hasName("x-amz-content-sha256")
        }
        prepared.headers += [
            HTTPHeader("Content-Encoding", "aws-chunked"),
            HTTPHeader("x-amz-decoded-content-length", String(decodedLength)),
            HTTPHeader("x-amz-content-sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"),
            HTTPHeader("Content-Length", String(encodedLength)),
        ]
        let seed = try signer.sign(prepared.sigV4Request(payload: .streaming), at: time)
        prepared = prepared.adding(seed)
        prepared.body = .stream(
            HTTPBodyStream(length: encodedLength) { () throws(AuthCoreError) in
                AWSChunkedFrames(
                    payload: try payload.open(),
                    decodedLength: decodedLength,
                    chunkSize: chunkSize,
                    signer: SigV4ChunkSigner(signer: signer, seed: seed)
                )
            }
        )
        return prepared
    }
}

/// The aws-chunked frames of a payload: the payload's pieces regrouped into chunks of exactly
/// `chunkSize` bytes (the last may be shorter), each framed with its chained signature, then the
/// final empty chunk.
final class AWSChunkedFrames: HTTPBodyChunks {
    private let payload: any HTTPBodyChunks
    private let decodedLength: Int
    private let chunkSize: Int
    private var signer: SigV4ChunkSigner
    private var pending: [UInt8] = []
    private var taken = 0
    private var sourceEnded = false
    private var finished = false

    init(payload: any HTTPBodyChunks, decodedLength: Int, chunkSize: Int, signer: SigV4ChunkSigner) {
        self.payload = payload
        self.decodedLength = decodedLength
        self.chunkSize = chunkSize
        self.signer = signer
    }

    /// - Throws: `AuthCoreError.Code.malformedRequest` when the payload gives more or fewer bytes
    ///   than `x-amz-decoded-content-length` said (before a frame of the excess is made).
    func next() throws(AuthCoreError) -> [UInt8]? {
        guard !finished else { return nil }
        while pending.count < chunkSize, !sourceEnded {
            guard let piece = try payload.next() else {
                sourceEnded = true
                break
            }
            guard piece.count <= decodedLength - taken else {
                throw AuthCoreError(
                    .malformedRequest,
                    "the aws-chunked payload is longer than its \(decodedLength) bytes"
                )
            }
            taken += piece.count
            pending += piece
        }
        if sourceEnded && taken != decodedLength {
            throw AuthCoreError(
                .malformedRequest,
                "the aws-chunked payload ended after \(taken) of its \(decodedLength) bytes"
            )
        }
        let take = Swift.min(chunkSize, pending.count)
        let frame = pending.withUnsafeBytes { signer.encode(chunk: UnsafeRawBufferPointer(rebasing: $0[0..<take])) }
        pending.removeFirst(take)
        if take == 0 { finished = true }  // the payload has ended: the empty chunk just framed ends the body
        return frame
    }
}
