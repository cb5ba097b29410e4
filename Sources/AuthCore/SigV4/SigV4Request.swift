/// An HTTP request as SigV4 sees it: method, request-line path and query, headers and payload.
///
/// The `Host` header must be among the headers (SigV4 signs it).
public struct SigV4Request: Sendable {
    /// The HTTP method (`GET`, `PUT`, ...).
    public var method: String
    /// The path as it appears on the request line (percent-escapes are kept as written).
    public var path: String
    /// The raw query string without `?` (may be empty).
    public var query: String
    /// The header fields to sign, in order.
    public var headers: [HTTPHeader]
    /// The payload, or how it is represented in the signature.
    public var payload: SigV4Payload

    /// A request for a split target (a ``RequestURL``'s ``RequestURL/requestTarget``).
    public init(method: String, target: RequestTarget, headers: [HTTPHeader], payload: SigV4Payload = .bytes([])) {
        self.method = method
        self.path = target.path
        self.query = target.query
        self.headers = headers
        self.payload = payload
    }

    /// A request from a request-line target (`/path?query`), split by ``RequestTarget``.
    public init(method: String, target: String, headers: [HTTPHeader], payload: SigV4Payload = .bytes([])) {
        self.init(method: method, target: RequestTarget(target), headers: headers, payload: payload)
    }

    /// The largest payload hashed in memory (larger payloads: hash them as you stream and pass
    /// ``SigV4Payload/precomputedHash(_:)``, or use aws-chunked signing).
    public static let maximumInMemoryPayload = 5 << 30
}

extension SigV4Request {
    /// Checks the method, the path's leading `/` and, with `checksTargetBytes`, the path and query
    /// for control characters. Header signing leaves the last check to the canonicaliser, whose
    /// fast paths already prove the bytes clean (it reports ``CanonicalHeaderProblem/controlCharactersInTarget``).
    package func validate(checksTargetBytes: Bool = true) throws(AuthCoreError) {
        @inline(__always) func isToken(_ byte: UInt8) -> Bool { ASCIISet.token.contains(byte) }
        let methodOK = !method.isEmpty && method.utf8AllSatisfy(isToken)
        guard methodOK else { throw AuthCoreError(.malformedRequest, "method '\(method)' is not an HTTP token") }
        let hasControl = CanonicalQuery.containsControlByte
        guard !checksTargetBytes || (!hasControl(path) && !hasControl(query)) else {
            throw CanonicalHeaderProblem.controlCharactersInTarget.error(headers)
        }
        guard path.isEmpty || path.utf8.first == UInt8(ascii: "/") else {
            throw AuthCoreError(.malformedRequest, "request path must start with '/'")
        }
        // Header names and values are checked while they are canonicalised (CanonicalRequest).
    }
}

/// The payload of a request as SigV4 signs it.
public enum SigV4Payload: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The body bytes; their SHA-256 is signed.
    case bytes([UInt8])
    /// The hex SHA-256 of a body hashed elsewhere.
    case precomputedHash(String)
    /// `UNSIGNED-PAYLOAD` (S3; presigned URLs).
    case unsigned
    /// `STREAMING-AWS4-HMAC-SHA256-PAYLOAD`: an `aws-chunked` body whose chunks are signed one by one
    /// (see ``SigV4ChunkSigner``).
    case streaming

    /// The kind and size only: a body can carry a token (`AssumeRoleWithWebIdentity`).
    public var description: String {
        switch self {
        case .bytes(let bytes): "bytes(\(bytes.count))"
        case .precomputedHash: "precomputedHash"
        case .unsigned: "unsigned"
        case .streaming: "streaming"
        }
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["kind": description], displayStyle: .enum) }
}

/// How a request is canonicalised (SigV4 "Create a canonical request").
public struct SigV4Options: Sendable, Hashable {
    /// URI-encode the path (every byte but `A-Za-z0-9-._~/`), as every service but S3 expects.
    public var doubleURIEncode: Bool
    /// Remove `.`/`..` segments and collapse repeated `/` (every service but S3).
    public var normalizePath: Bool
    /// Add and sign `x-amz-content-sha256` with the payload hash (S3 requires it).
    public var addContentSHA256Header: Bool
    /// Sign without the session token and add it afterwards (services that require this).
    public var omitSessionToken: Bool

    /// Options.
    public init(
        doubleURIEncode: Bool = true,
        normalizePath: Bool = true,
        addContentSHA256Header: Bool = false,
        omitSessionToken: Bool = false
    ) {
        self.doubleURIEncode = doubleURIEncode
        self.normalizePath = normalizePath
        self.addContentSHA256Header = addContentSHA256Header
        self.omitSessionToken = omitSessionToken
    }

    /// The default rules for every service except S3.
    public static let standard = SigV4Options()
    /// S3: no second URI encoding, no path normalisation, `x-amz-content-sha256` signed.
    public static let s3 = SigV4Options(doubleURIEncode: false, normalizePath: false, addContentSHA256Header: true)
}
