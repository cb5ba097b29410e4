/// A request to Alibaba Cloud OSS as its signers see it.
public struct OSSRequest: Sendable, CustomReflectable {
    /// The HTTP method.
    public var method: String
    /// The path as sent on the request line (used only to build presigned URIs).
    public var path: String
    /// The query parameters, decoded, in order (a valueless parameter has an empty value).
    public var parameters: [(key: String, value: String)]
    /// The header fields.
    public var headers: [HTTPHeader]
    /// The bucket, or nil for service-level requests.
    public var bucket: String?
    /// The object key, raw (not percent-encoded); empty for bucket-level requests.
    public var key: String
    /// V4: extra header names to sign besides `x-oss-*`, `content-type` and `content-md5`.
    public var additionalHeaders: [String] = []

    /// A request for a split target (a ``RequestURL``'s ``RequestURL/requestTarget``), bucket and
    /// raw object key.
    public init(method: String, target: RequestTarget, headers: [HTTPHeader], bucket: String?, key: String) {
        self.method = method
        self.headers = headers
        self.bucket = bucket
        self.key = key
        path = target.path
        parameters = target.query.isEmpty ? [] : CanonicalQuery.decodedPairs(target.query[...], omittingEmpty: true)
    }

    /// A request from its request-line target (`/key?acl&x=1`, split by ``RequestTarget``), bucket
    /// and raw object key.
    public init(method: String, target: String, headers: [HTTPHeader], bucket: String?, key: String) {
        self.init(method: method, target: RequestTarget(target), headers: headers, bucket: bucket, key: key)
    }
}

extension OSSRequest {
    /// Method, path, header names and parameter names: a `security-token` parameter's value and
    /// credential headers are never shown.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method, "path": path, "bucket": bucket as Any, "key": key, "headers": headers,
                "parameterNames": parameters.map(\.key),
            ],
            displayStyle: .struct
        )
    }
}

/// The result of OSS signing: headers to add, or a presigned target, plus intermediates.
public struct OSSSignature: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// How the string to sign is kept: V1's as text; V4's as the parts it is made of (rebuilt on demand).
    enum Intermediate {
        case text(String)
        case scoped(date: AmzDate, scopeSuffix: [UInt8], hash: Digest)
    }

    /// Headers to add (header mode): `Date` (V1) or `x-oss-date`/`x-oss-content-sha256` (V4), the
    /// security token if any, then `Authorization`.
    public let headers: [HTTPHeader]
    /// The `Authorization` value (header mode).
    public let authorization: String?
    /// The signature (Base64 for V1, hex for V4).
    public let signature: String
    /// The V4 canonical request, when signing was asked to keep it (`keepingCanonicalRequest`; nil for V1).
    public let canonicalRequest: String?
    let intermediate: Intermediate
    /// The presigned path and query (URL mode).
    public let signedURI: String?

    /// The string to sign.
    public var stringToSign: String {
        switch intermediate {
        case .text(let text): text
        case .scoped(let date, let scopeSuffix, let hash):
            StringToSign.with(
                algorithm: SigningScheme.aliyunV4.algorithm,
                date: date,
                scopeSuffix: scopeSuffix,
                hash: hash
            ) {
                String(decoding: $0, as: UTF8.self)
            }
        }
    }

    /// The header names only: never the `Authorization` value, the security token or the strings
    /// signed (which hold the token).
    public var description: String {
        "OSSSignature(headers: \(headers.map(\.name).joined(separator: ", "))\(signedURI == nil ? "" : ", presigned"))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["headerNames": headers.map(\.name)], displayStyle: .struct)
    }
}
