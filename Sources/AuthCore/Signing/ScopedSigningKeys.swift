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

    init(scheme: SigningScheme, credentials: Credentials, region: String, service: String, cache: SigningKeyCache) {
        self.scheme = scheme
        self.credentials = credentials
        self.region = region
        self.service = service
        self.cache = cache
        self.scopeSuffix = scheme.scopeSuffix(region: region, service: service)
        self.fingerprint = credentials.secretFingerprint.bytes
    }

    /// The signing key of `date`'s day and its keyed context.
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

    /// SHA-256 of a canonical request (the memo's reused context when it is free).
    func hash(canonicalRequest: UnsafeRawBufferPointer) -> Digest { memo.hash(canonicalRequest) }

    /// HMAC-SHA256 of the string to sign for `date` and the canonical request's `hash`
    /// (``StringToSign``), declassified: the signature is published in the request.
    func signature(date: AmzDate, hash: Digest) -> Digest {
        StringToSign.with(algorithm: scheme.algorithm, date: date, scopeSuffix: scopeSuffix, hash: hash) { stringToSign in
            if let mac = memo.authenticate(day: date.day, stringToSign) { return mac.published }
            return entry(for: date).authenticate(stringToSign).published  // the day's first signature fills the memo
        }
    }
}

/// A signer's memo of the signing key for the last day it signed on, with its own keyed HMAC context:
/// the hot path is one lock and one integer compare, skipping the shared cache's hashing of its key
/// and the shared entry's lock.
final class SigningKeyMemo: Sendable {
    private struct Remembered: ~Copyable {
        var day: Int
        var entry: SigningKeyCache.Entry?
        /// The memo's own keyed context, made at the second signature of a day: a signer used once
        /// (a server signing for many users' credentials) never pays for it, nor for a placeholder.
        var mac: KeyedHMAC?
        /// Whether a canonical request was hashed already, and the SHA-256 context reused from the
        /// second one on: re-initialising a live `EVP_MD_CTX` skips the context set-up of a one-shot
        /// `EVP_Digest` and one of its two allocations (OpenSSL 3.0). SHA-256's finalisation
        /// cleanses its block buffer, so the context keeps no request bytes between uses.
        var hashed = false
        var digest: DigestContext?
    }

    private let state = Locked(Remembered(day: Int.min, entry: nil, mac: nil))

    /// SHA-256 of `message`: with the reused context when the memo's lock is free at once, else
    /// one-shot (the first request, or another thread signing with this signer at this moment).
    func hash(_ message: UnsafeRawBufferPointer) -> Digest {
        let reused = state.withLockIfAvailable { remembered -> Digest? in
            guard remembered.hashed else {
                remembered.hashed = true  // a signer used once keeps no context
                return nil
            }
            let context: DigestContext
            if let existing = remembered.digest {
                existing.reset(algorithm: .sha256)
                context = existing
            } else {
                context = DigestContext(algorithm: .sha256)
                remembered.digest = context
            }
            context.update(message)
            return context.finalize(count: 32)
        }
        return (reused ?? nil) ?? SHA256.hash(bufferPointer: message)
    }

    /// HMAC-SHA256 of `message` under the remembered key, or nil when the memo holds another day.
    func authenticate(day: Int, _ message: UnsafeRawBufferPointer) -> Digest? {
        state.withLock { remembered in
            guard remembered.day == day else { return nil }
            if let digest = remembered.mac?.authenticationCode(for: message) { return digest }
            guard let entry = remembered.entry else { return nil }
            remembered.mac = KeyedHMAC(algorithm: .sha256, key: entry.signingKey)
            return remembered.mac?.authenticationCode(for: message)
        }
    }

    func lookup(day: Int) -> SigningKeyCache.Entry? {
        state.withLock { $0.day == day ? $0.entry : nil }
    }

    func store(day: Int, entry: SigningKeyCache.Entry) {
        state.withLock { remembered in
            remembered.day = day
            remembered.entry = entry
            remembered.mac = nil  // keyed when the day's second signature asks for it
        }
    }
}

