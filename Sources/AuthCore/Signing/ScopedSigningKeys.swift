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
    /// What the shared cache keys this scope's signing keys under, with the day: SHA-256 of the
    /// scheme, access key id, region, service and secret (``cacheIdentity(scheme:accessKeyId:region:service:secret:)``),
    /// inline (no array to allocate per signer).
    let cacheIdentity: Digest
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
        // On a stack context: a signer made per request pays no EVP context and its allocations for it.
        self.cacheIdentity = Self.cacheIdentity(
            scheme: scheme,
            accessKeyId: credentials.accessKeyId,
            region: region,
            service: service,
            secret: credentials.secretAccessKey
        )
    }

    /// SHA-256 of `tag ‖ len ‖ access key id ‖ len ‖ region ‖ len ‖ service ‖ len ‖ secret`: one
    /// byte for the scheme, each length a big-endian `UInt64`, the strings' UTF-8 bytes (so the
    /// encoding is injective, and two spellings of one string that are `==` but differ in bytes
    /// — `é` and `e` + U+0301 — are two scopes, as their keys are).
    ///
    /// Two scopes share an identity only if SHA-256 collides, so the cache compares 32 bytes and a
    /// day instead of three strings, and hashes nothing per lookup but this digest's first word.
    /// The secret is hashed, never kept: the identity is treated as public (declassified, as
    /// ``Credentials/secretFingerprint`` is), revealing at most bits of a one-way hash of a
    /// high-entropy key. The block the encoding is built in is wiped.
    static func cacheIdentity(
        scheme: SigningScheme,
        accessKeyId: String,
        region: String,
        service: String,
        secret: SecureBytes
    ) -> Digest {
        let length = 1 &+ 4 &* 8 &+ accessKeyId.utf8.count &+ region.utf8.count &+ service.utf8.count &+ secret.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { block in
            var out = OutputCursor(buffer: block)
            out.writeByte(scheme.cacheTag)
            @inline(__always) func writeLength(_ count: Int) {
                withUnsafeBytes(of: UInt64(count).bigEndian) { out.write($0) }
            }
            writeLength(accessKeyId.utf8.count)
            out.write(accessKeyId)
            writeLength(region.utf8.count)
            out.write(region)
            writeLength(service.utf8.count)
            out.write(service)
            writeLength(secret.count)
            secret.withUnsafeBytes { out.write($0) }
            assert(out.position == length, "a cache identity's encoding of another length than counted")
            let identity = LowLevelSHA256.hash(
                UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: block[..<out.position]))
            )
            .published
            secureZero(UnsafeMutableRawBufferPointer(block))
            return identity
        }
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
        let key = SigningKeyCache.Key(scope: cacheIdentity, day: date.day)
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
