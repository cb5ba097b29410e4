/// The signing keys of one credential scope (scheme, credentials, region, service) for any day:
/// what a signer holds. The one home of "which key signs this string": the signer's memo of its
/// last day first, else the shared ``SigningKeyCache`` (deriving on a miss).
final class ScopedSigningKeys: Sendable {
    let scheme: SigningScheme
    let credentials: Credentials
    let region: String
    let service: String
    /// `/region/service/terminator`.
    let scopeSuffix: [UInt8]
    let fingerprint: [UInt8]
    let cache: SigningKeyCache
    let memo = SigningKeyMemo()
    /// The date (and its header value, `X-Amz-Date` or `x-oss-date`) of the last second signed at.
    let dates = AmzDateMemo()

    init(scheme: SigningScheme, credentials: Credentials, region: String, service: String, cache: SigningKeyCache) {
        self.scheme = scheme
        self.credentials = credentials
        self.region = region
        self.service = service
        self.cache = cache
        self.scopeSuffix = scheme.scopeSuffix(region: region, service: service)
        self.fingerprint = credentials.secretFingerprint.bytes
    }

    /// The keyed HMAC state of `date`'s day signing key.
    func entry(for date: AmzDate) -> SigningKeyCache.Entry {
        if let hit = memo.lookup(day: date.day) { return hit }
        let dateText = date.dateString
        let key = SigningKeyCache.Key(
            scheme: scheme, accessKeyId: credentials.accessKeyId, fingerprint: fingerprint, date: dateText, region: region,
            service: service)
        let entry = cache.entry(for: key) {
            scheme.deriveSigningKey(secret: credentials.secretAccessKey, date: dateText, region: region, service: service)
        }
        memo.store(day: date.day, entry: entry)
        return entry
    }

    /// SHA-256 of a canonical request (on a stack context: no allocation).
    func hash(canonicalRequest: UnsafeRawBufferPointer) -> Digest { LowLevelSHA256.hash(canonicalRequest) }

    /// HMAC-SHA256 of the string to sign for `date` and the canonical request's `hash`
    /// (``StringToSign``), declassified: the signature is published in the request.
    func signature(date: AmzDate, hash: Digest) -> Digest {
        StringToSign.with(algorithm: scheme.algorithm, date: date, scopeSuffix: scopeSuffix, hash: hash) { stringToSign in
            entry(for: date).authenticate(stringToSign).published  // the memo's entry, or the cache's (filling the memo)
        }
    }
}

/// A signer's memo of the signing key for the last day it signed on: the hot path is one lock and
/// one integer compare, skipping the shared cache's hashing of its key. The entry's schedule is
/// immutable, so the MAC itself runs outside any lock.
final class SigningKeyMemo: Sendable {
    private struct Remembered {
        var day: Int
        var entry: SigningKeyCache.Entry?
    }

    private let state = Locked(Remembered(day: Int.min, entry: nil))

    func lookup(day: Int) -> SigningKeyCache.Entry? {
        state.withLock { $0.day == day ? $0.entry : nil }
    }

    func store(day: Int, entry: SigningKeyCache.Entry) {
        state.withLock { remembered in
            remembered.day = day
            remembered.entry = entry
        }
    }
}
