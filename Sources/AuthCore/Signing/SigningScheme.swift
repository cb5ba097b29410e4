/// A family of scoped HMAC-SHA256 request signatures: the algorithm name in the string to sign, and
/// how the scoped signing key is derived from the secret.
///
/// Both schemes derive the key the same way, with their own seed prefix and terminator:
///
/// ```
/// kSigning = HMAC(HMAC(HMAC(HMAC(prefix + secret, date), region), service), terminator)
/// ```
///
/// - ``aws4``: prefix `AWS4`, terminator `aws4_request`, algorithm `AWS4-HMAC-SHA256` (AWS General
///   Reference, "Signature Version 4 signing process", step 3).
/// - ``aliyunV4``: prefix `aliyun_v4`, terminator `aliyun_v4_request`, algorithm `OSS4-HMAC-SHA256`
///   (OSS documentation, "Signature Version 4 (recommended)").
///
/// Alibaba Cloud's ACS3 signatures (`ACS3-HMAC-SHA256`) MAC with the secret itself and have no
/// scope; they would be a case whose key is the secret (no derivation), sharing the rest.
public enum SigningScheme: Sendable, Hashable {
    /// AWS Signature Version 4.
    case aws4
    /// Alibaba Cloud OSS V4.
    case aliyunV4

    /// The algorithm named on the first line of the string to sign and in the `Authorization` header.
    public var algorithm: StaticString {
        switch self {
        case .aws4: "AWS4-HMAC-SHA256"
        case .aliyunV4: "OSS4-HMAC-SHA256"
        }
    }

    /// The last element of the credential scope.
    public var terminator: StaticString {
        switch self {
        case .aws4: "aws4_request"
        case .aliyunV4: "aliyun_v4_request"
        }
    }

    /// What the secret is prefixed with to seed the chain.
    var keyPrefix: StaticString {
        switch self {
        case .aws4: "AWS4"
        case .aliyunV4: "aliyun_v4"
        }
    }

    /// The scheme's byte in a signing-key cache identity (``ScopedSigningKeys/cacheIdentity(scheme:accessKeyId:region:service:secret:)``).
    package var cacheTag: UInt8 {
        switch self {
        case .aws4: 1
        case .aliyunV4: 2
        }
    }

    /// `/region/service/terminator`: the credential scope after its `YYYYMMDD` date.
    func scopeSuffix(region: String, service: String) -> [UInt8] {
        let count = 3 + region.utf8.count + service.utf8.count + terminator.utf8CodeUnitCount
        // Through Array(writing:): a signer made per request builds it each time.
        return [UInt8](writing: count) { out in
            out.writeByte(UInt8(ascii: "/"))
            out.write(region)
            out.writeByte(UInt8(ascii: "/"))
            out.write(service)
            out.writeByte(UInt8(ascii: "/"))
            out.write(terminator)
        }
    }

    /// The scoped signing key (four HMAC-SHA256 steps, ``HMACKeyChain``).
    package func deriveSigningKey(secret: SecureBytes, date: String, region: String, service: String) -> SecureBytes {
        SecureBytes(count: LowLevelSHA256.byteCount) { key in
            deriveSigningKey(secret: secret, date: date, region: region, service: service, into: key)
        }
    }

    /// The scoped signing key's HMAC-SHA256 schedule, what a cache keeps: the key itself lives only
    /// in a stack block, wiped once the schedule is keyed.
    func signingKeySchedule(secret: SecureBytes, date: String, region: String, service: String) -> HMACSHA256Schedule {
        Self.lend(date) { signingKeySchedule(secret: secret, date: $0, region: region, service: service) }
    }

    /// ``signingKeySchedule(secret:date:region:service:)`` for `date`'s day (its `YYYYMMDD` bytes
    /// lent in place: no string is made).
    func signingKeySchedule(secret: SecureBytes, date: AmzDate, region: String, service: String) -> HMACSHA256Schedule {
        date.withDateBytes { signingKeySchedule(secret: secret, date: $0, region: region, service: service) }
    }

    private func signingKeySchedule(
        secret: SecureBytes,
        date: UnsafeRawBufferPointer,
        region: String,
        service: String
    ) -> HMACSHA256Schedule {
        withUnsafeTemporaryAllocation(byteCount: LowLevelSHA256.byteCount, alignment: 8) { key in
            deriveSigningKey(secret: secret, date: date, region: region, service: service, into: key)
            let schedule = HMACSHA256Schedule.make(key: UnsafeRawBufferPointer(key))
            secureZero(key)
            return schedule
        }
    }

    /// ``deriveSigningKey(secret:date:region:service:into:)`` with the date as text.
    private func deriveSigningKey(
        secret: SecureBytes,
        date: String,
        region: String,
        service: String,
        into key: UnsafeMutableRawBufferPointer
    ) {
        Self.lend(date) { deriveSigningKey(secret: secret, date: $0, region: region, service: service, into: key) }
    }

    /// The chain seeded with `prefix ‖ secret` (built in a stack block, wiped afterwards), its key
    /// written to `key` (32 bytes).
    private func deriveSigningKey(
        secret: SecureBytes,
        date: UnsafeRawBufferPointer,
        region: String,
        service: String,
        into key: UnsafeMutableRawBufferPointer
    ) {
        secret.withUnsafeBytes { secretBytes in
            let prefixCount = keyPrefix.utf8CodeUnitCount
            withUnsafeTemporaryAllocation(byteCount: prefixCount + secretBytes.count, alignment: 8) { seed in
                keyPrefix.withUTF8Buffer { seed.copyMemory(from: UnsafeRawBufferPointer($0)) }
                UnsafeMutableRawBufferPointer(rebasing: seed[prefixCount...]).copyMemory(from: secretBytes)
                HMACKeyChain.derive(seed: UnsafeRawBufferPointer(seed), stepCount: 4, into: key) { index, step in
                    switch index {
                    case 0: step(date)
                    case 1: Self.lend(region, step)
                    case 2: Self.lend(service, step)
                    default: terminator.withUTF8Buffer { step(UnsafeRawBufferPointer($0)) }
                    }
                }
                secureZero(seed)
            }
        }
    }

    /// A string's UTF-8 bytes, in place when it is native (no copy of the value).
    @inline(__always)
    private static func lend<R>(_ text: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        var text = text
        return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}
