/// Alibaba Cloud's RPC-style API signature, signature version 1.0 (the one STS `AssumeRole` takes).
///
/// From the Alibaba Cloud API documentation ("RPC signature mechanism"):
///
/// ```
/// CanonicalizedQueryString = join("&", sorted(percentEncode(key) "=" percentEncode(value)))   every parameter but Signature
/// StringToSign             = METHOD "&" percentEncode("/") "&" percentEncode(CanonicalizedQueryString)
/// Signature                = Base64(HMAC-SHA1(AccessKeySecret "&", StringToSign))
/// ```
///
/// `percentEncode` is RFC 3986 with upper-case hex: only `A-Za-z0-9-_.~` stay (a space is `%20`,
/// `*` is `%2A`), on the UTF-8 bytes (the signing toolkit's unreserved encode set). Pairs are sorted by
/// encoded key in byte order (the SDKs sort by raw key; for parameter names, which are ASCII letters,
/// digits and `.`, the orders agree). Pinned by vectors from `aliyun-python-sdk-core` and
/// `alibabacloud-openapi-util`.
///
/// Deterministic: the caller passes the time and the nonce.
public struct AliyunRPCSigner: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key that signs (an STS key also adds `SecurityToken`).
    public let credentials: Credentials

    /// A signer for `credentials`.
    public init(credentials: Credentials) {
        self.credentials = credentials
    }

    /// The signed parameters of one call: the API's own `parameters` with the common ones added —
    /// `Action`, `Version`, `Format`, `AccessKeyId`, `SignatureMethod` (`HMAC-SHA1`),
    /// `SignatureVersion` (`1.0`), `SignatureNonce`, `Timestamp` (ISO 8601 UTC) and, for STS
    /// credentials, `SecurityToken` — then `Signature`.
    ///
    /// - Throws: ``AuthCoreError/Code/malformedRequest`` when `parameters` names a common parameter,
    ///   repeats a name or has an empty one, or for a nonce that is not 1–64 unreserved characters.
    public func sign(
        action: String,
        version: String,
        parameters: [(key: String, value: String)],
        method: String = "POST",
        format: String = "JSON",
        at time: Timestamp,
        nonce: String
    ) throws(AuthCoreError) -> AliyunRPCSignature {
        try AliyunSignatureNonce.check(nonce)
        // Appended one by one into one allocation: an array literal would be a second array, and
        // `append(contentsOf:)` copies the pairs through the tuple type's generic witnesses.
        var all: [(key: String, value: String)] = []
        all.reserveCapacity(Self.commonParameterCount + parameters.count)
        all.append(("Action", action))
        all.append(("Version", version))
        all.append(("Format", format))
        all.append(("AccessKeyId", credentials.accessKeyId))
        all.append(("SignatureMethod", "HMAC-SHA1"))
        all.append(("SignatureVersion", "1.0"))
        all.append(("SignatureNonce", nonce))
        all.append(("Timestamp", time.iso8601))
        if let token = credentials.sessionToken { all.append(("SecurityToken", token)) }
        let common = all.count
        for pair in parameters { all.append(pair) }
        return try sign(method: method, parameters: all, setBySigner: common)
    }

    /// The most parameters the signer sets itself (``sign(action:version:parameters:method:format:at:nonce:)``).
    static let commonParameterCount = 9

    /// Signs `parameters` as given (every parameter of the request but `Signature`, which is
    /// refused): the lower layer of ``sign(action:version:parameters:method:format:at:nonce:)``,
    /// for callers that build the common parameters themselves.
    ///
    /// - Throws: ``AuthCoreError/Code/malformedRequest`` for a method other than GET or POST, an
    ///   empty or repeated name, or a `Signature` parameter.
    public func sign(
        method: String,
        parameters: [(key: String, value: String)]
    ) throws(AuthCoreError) -> AliyunRPCSignature {
        try sign(method: method, parameters: parameters, setBySigner: 0)
    }

    /// Signs `parameters`, the first `setBySigner` of which the signer set itself (a later one with
    /// the same name is refused as set by the signer).
    ///
    /// The checks are made once on the sorted canonical query (a repeated name is two equal
    /// adjacent keys there); only a request that fails them is read again, in order, to name the
    /// first offending parameter.
    private func sign(
        method: String,
        parameters: [(key: String, value: String)],
        setBySigner: Int
    ) throws(AuthCoreError)
        -> AliyunRPCSignature
    {
        guard method == "GET" || method == "POST" else {
            // A name the signer sets, given again, is reported first (as it was before the method was read).
            throw Self.signerSetNameGivenAgain(parameters, setBySigner: setBySigner)
                ?? AuthCoreError(.malformedRequest, "RPC method must be GET or POST")
        }
        var repeated = false
        let canonical = CanonicalQuery.fromPairs(parameters, emptyValue: .keyEquals, hasRepeatedKey: &repeated)
        if repeated || parameters.contains(where: { $0.key.isEmpty || Self.isSignatureName($0.key) }) {
            throw Self.firstProblem(parameters, setBySigner: setBySigner)
        }
        // METHOD & %2F & percentEncode(canonical), in a buffer with room for every byte escaped.
        let prefix: StaticString = "&%2F&"
        let capacity = method.utf8.count &+ prefix.utf8CodeUnitCount &+ 3 &* canonical.count
        // Its block is wiped: the query may hold a session token (`SecurityToken`).
        let stringToSign = [UInt8](writing: capacity, holdsSecret: true) { out in
            out.write(method)
            out.write(prefix)
            canonical.withUnsafeBufferPointer { PercentEncoding.encode($0, .unreserved, into: &out) }
        }
        let signature = credentials.secretAccessKey.withUnsafeBytes { secret in
            // The key is `secret &`, built in a stack block that is wiped afterwards.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: secret.count &+ 1) { key in
                let key = UnsafeMutableRawBufferPointer(key)
                key.copyMemory(from: secret)
                key[secret.count] = UInt8(ascii: "&")
                defer { secureZero(key.baseAddress!, count: key.count) }  // invariant: capacity >= 1
                return stringToSign.withUnsafeBytes {
                    LowLevelHMACSHA1.authenticationCode(for: $0, using: UnsafeRawBufferPointer(key))
                }
            }
        }.publishedBase64  // the signature is published in the request
        return AliyunRPCSignature(
            parameters: parameters,
            canonicalizedQueryBytes: canonical,
            stringToSignBytes: stringToSign,
            signature: signature
        )
    }

    /// Whether `name` is `Signature`, byte for byte.
    private static func isSignatureName(_ name: String) -> Bool {
        let signature: StaticString = "Signature"
        guard name.utf8.count == signature.utf8CodeUnitCount else { return false }
        return signature.withUTF8Buffer { expected in name.utf8.elementsEqual(expected) }
    }

    /// The first problem of `parameters` in order: a name the signer sets given again, an empty or
    /// repeated name, or `Signature`.
    private static func firstProblem(_ parameters: [(key: String, value: String)], setBySigner: Int) -> AuthCoreError {
        if let clash = signerSetNameGivenAgain(parameters, setBySigner: setBySigner) { return clash }
        var seen = Set<[UInt8]>()
        for (key, _) in parameters {
            guard !key.isEmpty else { return AuthCoreError(.malformedRequest, "parameter name is empty") }
            guard !isSignatureName(key) else {
                return AuthCoreError(.malformedRequest, "parameter 'Signature' is written by the signer")
            }
            guard seen.insert(Array(key.utf8)).inserted else {
                return AuthCoreError(.malformedRequest, "parameter '\(key)' is repeated")
            }
        }
        // Not reached: the caller found an empty name, `Signature`, or two byte-equal encoded keys,
        // whose raw names are byte-equal (the encoding is one-to-one). Still a refusal if it were.
        return AuthCoreError(.malformedRequest, "the parameters are malformed")
    }

    /// A caller's parameter named as one of the first `setBySigner` (which the signer set), compared
    /// as bytes, as the server reads names (not as Unicode-equivalent strings).
    private static func signerSetNameGivenAgain(
        _ parameters: [(key: String, value: String)],
        setBySigner: Int
    ) -> AuthCoreError? {
        for (key, _) in parameters.dropFirst(setBySigner)
        where parameters.prefix(setBySigner).contains(where: { $0.key.utf8.elementsEqual(key.utf8) }) {
            return AuthCoreError(.malformedRequest, "parameter '\(key)' is set by the signer")
        }
        return nil
    }

    /// The access key id only.
    public var description: String { "AliyunRPCSigner(\(credentials.accessKeyId))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["credentials": credentials], displayStyle: .struct) }
}

/// The once-only value of an Alibaba Cloud API request (`SignatureNonce`, `x-acs-signature-nonce`).
enum AliyunSignatureNonce {
    /// - Throws: ``AuthCoreError/Code/malformedRequest`` unless `nonce` is 1–64 unreserved characters.
    static func check(_ nonce: String) throws(AuthCoreError) {
        // A closure literal, not the method value `EncodeSet.unreserved.keeps` (whose context is
        // a heap box per call).
        guard (1...64).contains(nonce.utf8.count), nonce.utf8AllSatisfy({ ASCIISet.unreserved.contains($0) })
        else {
            throw AuthCoreError(.malformedRequest, "signature nonce must be 1-64 characters from A-Z a-z 0-9 - . _ ~")
        }
    }
}

/// A signed RPC call: the parameters to send (in ``query`` form, as a GET query or a POST form body)
/// and the intermediate values.
public struct AliyunRPCSignature: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The parameters that were signed, in the order given.
    public let parameters: [(key: String, value: String)]
    let canonicalizedQueryBytes: [UInt8]
    let stringToSignBytes: [UInt8]
    /// `Base64(HMAC-SHA1(secret "&", StringToSign))`.
    public let signature: String

    /// The canonicalised query string (sorted, encoded pairs).
    public var canonicalizedQuery: String { String(decoding: canonicalizedQueryBytes, as: UTF8.self) }
    /// `METHOD&%2F&percentEncode(canonicalizedQuery)`.
    public var stringToSign: String { String(decoding: stringToSignBytes, as: UTF8.self) }

    /// The canonical query with `Signature` last: the body of a POST
    /// (`application/x-www-form-urlencoded`) or the query of a GET.
    public var query: String {
        var out = canonicalizedQueryBytes
        out.append(contentsOf: "&Signature=".utf8)
        PercentEncoding.encode(signature.utf8, .unreserved, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The parameter names and the signature's presence only: values can hold a session token or a
    /// policy, and the signed query carries the token.
    public var description: String {
        "AliyunRPCSignature(parameters: \(parameters.map(\.key).joined(separator: ", ")))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["parameterNames": parameters.map(\.key)], displayStyle: .struct)
    }
}
