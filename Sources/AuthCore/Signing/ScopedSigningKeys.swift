/// The signing keys of one credential scope (scheme, credentials, region, service) for any day:
/// what a signer holds. The one home of "which key signs this string": the signer's memo of its
/// last day first, else the shared ``SigningKeyCache`` (deriving on a miss).
///
/// Not final: a signer's own storage may extend it (`SigV4Signer.Storage`), so a signer made per
/// request is one heap object, not two.
class ScopedSigningKeys: @unchecked Sendable {
    // invariant (Sendable): every stored property, here and in subclasses, is a `let` of a Sendable
    // type (the memo guards its state with its own lock).
    let scheme: SigningScheme
    let credentials: Credentials
    let region: String
    let service: String
    /// `/region/service/terminator`.
    let scopeSuffix: [UInt8]
    /// The secret's SHA-256 fingerprint, inline (no array to allocate per signer).
    let fingerprint: Digest
    let cache: SigningKeyCache
    /// The last second's date and header value, and the last day's signing key.
    let memo = SigningMemo()

    /// - Parameter scopeSuffix: `scheme.scopeSuffix(region:service:)`, when the caller has built it
    ///   already (nil: built here).
    init(
        scheme: SigningScheme,
        credentials: Credentials,
        region: String,
        service: String,
        cache: SigningKeyCache,
        scopeSuffix: [UInt8]? = nil
    ) {
        self.scheme = scheme
        self.credentials = credentials
        self.region = region
        self.service = service
        self.cache = cache
        assert(
            scopeSuffix == nil || scopeSuffix == scheme.scopeSuffix(region: region, service: service),
            "a scope suffix of another scope"
        )
        self.scopeSuffix = scopeSuffix ?? scheme.scopeSuffix(region: region, service: service)
        // The secret's SHA-256 fingerprint (``Credentials/secretFingerprint``), on a stack context:
        // a signer made per request pays no EVP context and its allocations for it.
        self.fingerprint = credentials.secretAccessKey.withUnsafeBytes { LowLevelSHA256.hash($0) }.published
    }

    /// The date of `time`, its header value (`X-Amz-Date`, `x-oss-date`) and its day's signing
    /// key: on the hot path one lock (the memo's), no formatting and no cache lookup.
    @inline(__always)
    final func dated(_ time: Timestamp) -> (date: AmzDate, text: String, entry: SigningKeyCache.Entry) {
        let (date, text, remembered) = memo.lookup(at: time)
        return (date, text, remembered ?? derivedEntry(for: date))
    }

    /// The keyed HMAC state of `date`'s day signing key.
    final func entry(for date: AmzDate) -> SigningKeyCache.Entry {
        memo.lookup(day: date.day) ?? derivedEntry(for: date)
    }

    /// The shared cache's entry for `date`'s day (deriving the key on a miss), remembered in the memo.
    private func derivedEntry(for date: AmzDate) -> SigningKeyCache.Entry {
        let key = SigningKeyCache.Key(
            scheme: scheme,
            accessKeyId: credentials.accessKeyId,
            fingerprint: fingerprint,
            day: date.day,
            region: region,
            service: service
        )
        let entry = cache.entry(for: key) {
            scheme.signingKeySchedule(
                secret: credentials.secretAccessKey,
                date: date,
                region: region,
                service: service
            )
        }
        memo.store(day: date.day, entry: entry)
        return entry
    }

    /// SHA-256 of a canonical request (on a stack context: no allocation).
    final func hash(canonicalRequest: UnsafeRawBufferPointer) -> Digest { LowLevelSHA256.hash(canonicalRequest) }

    /// HMAC-SHA256 of the string to sign for `date` and the canonical request's `hash`
    /// (``StringToSign``), declassified: the signature is published in the request.
    final func signature(date: AmzDate, hash: Digest) -> Digest {
        // the memo's entry, or the cache's (filling the memo)
        signature(date: date, hash: hash, entry: entry(for: date))
    }

    /// ``signature(date:hash:)`` under `entry`, `date`'s day signing key (from ``dated(_:)``).
    final func signature(date: AmzDate, hash: Digest, entry: SigningKeyCache.Entry) -> Digest {
        StringToSign.with(algorithm: scheme.algorithm, date: date, scopeSuffix: scopeSuffix, hash: hash) {
            stringToSign in
            entry.authenticationCode(for: stringToSign).published
        }
    }
}
