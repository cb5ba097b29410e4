/// The one error type AuthCore throws.
///
/// An error carries a ``Code`` (what went wrong, stable and switchable), a human-readable
/// ``reason`` that never contains secret material (it names the field instead: "salt_hex: odd
/// number of digits"), and the file and line that raised it. Two errors are equal when their codes
/// are equal, so tests can write `#expect(throws: AuthCoreError(.invalidHex))`-style checks.
///
/// Codes are an extensible set: `switch` over them with a `default` case.
public struct AuthCoreError: Error, Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// What went wrong.
    public let code: Code
    /// A non-secret explanation, suitable for logs and for one line on stderr.
    public let reason: String
    /// The file that raised the error (`#fileID`).
    public let file: String
    /// The line that raised the error.
    public let line: UInt
    /// For ``Code/serviceError``: the service's own error type (`NotAuthorizedException`), as sent.
    public let serviceErrorType: String?
    /// For ``Code/serviceError`` and ``Code/redirectRefused``: the HTTP status of the answer.
    public let httpStatus: Int?
    /// For ``Code/serviceError``: the request id the service gave the call (`x-amzn-RequestId`,
    /// `x-amz-request-id`, OSS's `x-oss-request-id`), to quote to its support.
    public let requestId: String?
    /// The error AuthCore wrapped into this one (an app closure's, a store's), when there is one. It is
    /// never part of ``reason`` or ``description``: it may hold anything, secrets included.
    public private(set) var underlyingError: (any Error)?

    /// Whether the caller's task was cancelled (``Code/cancelled``), as opposed to a failure.
    public var isCancellation: Bool { code == .cancelled }

    /// This error with `error` as its ``underlyingError``.
    public func causedBy(_ error: any Error) -> AuthCoreError {
        var copy = self
        copy.underlyingError = error
        return copy
    }

    /// Creates an error.
    @inline(never)
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) {
        self.init(code, reason, httpStatus: nil, file: file, line: line)
    }

    /// An error with the HTTP status of the answer that caused it.
    @inline(never)
    public init(_ code: Code, _ reason: String, httpStatus: Int?, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
        self.serviceErrorType = nil
        self.httpStatus = httpStatus
        self.requestId = nil
        self.underlyingError = nil
    }

    /// An error a remote service answered with; the reason keeps its type and message
    /// (`NotAuthorizedException: Incorrect username or password.`).
    @inline(never)
    public init(
        serviceErrorType: String,
        message: String,
        httpStatus: Int,
        requestId: String? = nil,
        file: String = #fileID,
        line: UInt = #line
    ) {
        self.code = .serviceError
        self.reason = message.isEmpty ? serviceErrorType : "\(serviceErrorType): \(message)"
        self.file = file
        self.line = line
        self.serviceErrorType = serviceErrorType
        self.httpStatus = httpStatus
        self.requestId = requestId
        self.underlyingError = nil
    }

    public var description: String {
        "AuthCoreError.\(code): \(reason) \(file):\(line)"
    }

    public static func == (lhs: AuthCoreError, rhs: AuthCoreError) -> Bool { lhs.code == rhs.code }
    /// What `dump`, `Mirror` and reflecting loggers see: everything but the wrapped error's contents
    /// (only its type), which may hold anything.
    public var customMirror: Mirror {
        var children: [(String, Any)] = [("code", code), ("reason", reason), ("file", file), ("line", line)]
        if let serviceErrorType { children.append(("serviceErrorType", serviceErrorType)) }
        if let httpStatus { children.append(("httpStatus", httpStatus)) }
        if let requestId { children.append(("requestId", requestId)) }
        if let underlyingError { children.append(("underlyingError", "\(type(of: underlyingError))")) }
        return Mirror(self, children: children.map { (label: $0.0, value: $0.1) }, displayStyle: .struct)
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension AuthCoreError {
    /// The kind of an ``AuthCoreError``: an extensible set of named values.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Backing: String, Hashable, Sendable {
            case invalidHex
            case invalidBase64
            case invalidLength
            case invalidParameter
            case invalidGroup
            case unsafePublicValue
            case proofMismatch
            case signatureMismatch
            case malformedInput
            case malformedRequest
            case malformedResponse
            case inputTooLarge
            case expired
            case libcryptoFailure
            case randomFailure
            case unsupported
            case serviceError
            case transportFailure
            case credentialsUnavailable
            case redirectRefused
            case timedOut
            case cancelled
            case notPermitted
        }

        private let backing: Backing
        private init(_ backing: Backing) { self.backing = backing }

        public var description: String { backing.rawValue }

        /// Text that should be hexadecimal is not (bad digit, empty, odd length where even is required).
        public static let invalidHex = Code(.invalidHex)
        /// Text that should be Base64 is not.
        public static let invalidBase64 = Code(.invalidBase64)
        /// A value has the wrong length (a proof, a key, an output length out of range).
        public static let invalidLength = Code(.invalidLength)
        /// A parameter is out of its documented range.
        public static let invalidParameter = Code(.invalidParameter)
        /// An SRP group (N, g) fails validation, or a modulus is unusable.
        public static let invalidGroup = Code(.invalidGroup)
        /// A peer's public value is unsafe: `A ≡ 0 (mod N)`, `B ≡ 0 (mod N)`, `u = 0`, or a value ≥ N.
        public static let unsafePublicValue = Code(.unsafePublicValue)
        /// An SRP proof (M1 or M2) does not verify.
        public static let proofMismatch = Code(.proofMismatch)
        /// A signature or MAC does not verify.
        public static let signatureMismatch = Code(.signatureMismatch)
        /// Input that is not in the expected format (JSON, a date, a URL, a token).
        public static let malformedInput = Code(.malformedInput)
        /// A request cannot be signed or sent as given.
        public static let malformedRequest = Code(.malformedRequest)
        /// A service answered with something that is not the documented shape.
        public static let malformedResponse = Code(.malformedResponse)
        /// Input exceeds a documented size limit.
        public static let inputTooLarge = Code(.inputTooLarge)
        /// Credentials, tokens or signed URLs are expired, or would be before use.
        public static let expired = Code(.expired)
        /// An OpenSSL call failed; the reason carries OpenSSL's library and reason codes.
        public static let libcryptoFailure = Code(.libcryptoFailure)
        /// The random number generator failed.
        public static let randomFailure = Code(.randomFailure)
        /// The operation or algorithm is not supported.
        public static let unsupported = Code(.unsupported)
        /// A remote service refused the request; the reason keeps the service's error type and message.
        public static let serviceError = Code(.serviceError)
        /// The network transport failed.
        public static let transportFailure = Code(.transportFailure)
        /// No credentials could be obtained.
        public static let credentialsUnavailable = Code(.credentialsUnavailable)
        /// A service answered with a redirect, which is not followed (a signed request never, an
        /// unsigned one only to the same origin when the caller opted in); the reason names where the
        /// service pointed.
        public static let redirectRefused = Code(.redirectRefused)
        /// An operation did not finish within its time limit (a credentials source that hangs).
        public static let timedOut = Code(.timedOut)
        /// The caller's task was cancelled while it waited.
        public static let cancelled = Code(.cancelled)
        /// A well-formed request that a policy does not allow (a signing authority asked to sign for
        /// another bucket, key prefix, method or a longer URL lifetime).
        public static let notPermitted = Code(.notPermitted)
    }
}
